// Command fakeopenai is a fake OpenAI-compatible chat server for trying the
// chat by hand (docs/tui.md, "Demo tips"): it streams a Markdown answer
// that cites [source_k] tokens split across small chunks, slowly, like a
// real model. It prints its base URL and serves until interrupted.
//
//	go run ./ui/testdata/fakeopenai -delay 20ms
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

const answer = `## What the documents say

Every claim carries a footnote number assigned by **first appearance** [source_2], and a number never changes once shown [source_2][source_1].

- Numbers restart with each answer by default [source_3].
- A conversation-wide ledger is an option [source_1, source_4].
- An id that was never offered is shown as unknown [source_99].

| Mode | Numbers |
|------|---------|
| answer | restart [source_3] |
| conversation | continue [source_4] |

In short, the engine renumbers while streaming and the result equals the offline renumbering [source_5].`

func main() {
	delay := flag.Duration("delay", 25*time.Millisecond, "pause before each chunk")
	size := flag.Int("chunk", 4, "bytes per chunk")
	flag.Parse()
	s := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(answer, *size), Delay: *delay})
	defer s.Close()
	fmt.Println(s.BaseURL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
}
