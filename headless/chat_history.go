package headless

import (
	"crypto/sha256"
	"strings"
	"sync"

	"github.com/ibid-dev/ibid/rag"
)

// A chat-completions client keeps the conversation and sends all of it
// with each question. The pipeline takes a conversation as a
// rag.Conversation: the earlier turns, each a question and its answer's
// events, with the aliases its sources were offered under. This file
// turns the messages into one.
//
// The server remembers every conversation it answered under the text of
// its last reply (chatMemory). When the messages end, before the
// question, with a reply it sent, and the questions before it are the
// ones it answered, the conversation continues exactly: earlier answers go
// back to the model with their citations, segments keep their aliases.
// Otherwise (the server restarted, the client edited the history, another
// server wrote the replies) the turns are rebuilt from the messages' text
// alone, the sources list of ibid's replies cut off.

// chatTurn is a question and the reply to it, as the client sent them.
type chatTurn struct{ question, reply string }

// chatConversation returns the conversation the messages hold before
// their last, and that last message, the question: it must be the
// user's. System and tool messages are left out (the pipeline has its own
// instructions); consecutive user messages are one question.
func (s *Server) chatConversation(msgs []chatMessage) (*rag.Conversation, string, *apiError) {
	last := msgs[len(msgs)-1]
	if last.Role != "user" {
		return nil, "", badRequest("messages", `the last message must be the user's question (role "user"), not `+quoteRole(last.Role))
	}
	var turns []chatTurn
	var asked []string
	for _, m := range msgs {
		text, err := m.text()
		if err != nil {
			return nil, "", badRequest("messages", err.Error())
		}
		text = strings.TrimSpace(text)
		switch {
		case m.Role == "user" && text != "":
			asked = append(asked, text)
		case m.Role == "assistant" && text != "":
			turns = append(turns, chatTurn{question: strings.Join(asked, "\n\n"), reply: text})
			asked = nil
		}
	}
	question := strings.Join(asked, "\n\n")
	if question == "" {
		return nil, "", badRequest("messages", "the question (the last user message) is empty")
	}
	if len(turns) > s.cfg.MaxTurns {
		turns = turns[len(turns)-s.cfg.MaxTurns:]
	}
	if len(turns) > 0 {
		if conv := s.chat.recall(turns[len(turns)-1].reply); conv != nil && sameQuestions(conv.Turns, turns) {
			return conv, question, nil
		}
	}
	conv := rag.NewConversation(s.cfg.LibraryName)
	for _, t := range turns {
		conv.Turns = append(conv.Turns, rag.Turn{
			Question: t.question,
			Events:   []rag.Event{{Type: rag.EventText, Text: withoutSources(t.reply)}},
		})
	}
	return conv, question, nil
}

func quoteRole(role string) string {
	if role == "" {
		return "a message without a role"
	}
	return `"` + role + `"`
}

// sameQuestions reports whether the last turns of a remembered
// conversation asked what the client's turns ask, as far back as both go.
func sameQuestions(remembered []rag.Turn, sent []chatTurn) bool {
	n := min(len(remembered), len(sent))
	for i := 1; i <= n; i++ {
		if strings.TrimSpace(remembered[len(remembered)-i].Question) != sent[len(sent)-i].question {
			return false
		}
	}
	return n > 0
}

// sourcesHeading starts the sources list of a Markdown reply (Reply.end).
const sourcesHeading = "\n\n**Sources**\n\n"

// unsupportedLead starts the line of a Markdown reply that names the
// footnotes whose passages do not support them (Reply.end); it follows the
// sources list, when there is one.
const unsupportedLead = "\n\n**" + unsupportedLine

// withoutSources is a reply of ibid's without its sources list and what
// follows it (the unsupported footnotes, the note), which the model, told
// to write none, should not see in its own earlier answers.
func withoutSources(reply string) string {
	i := strings.LastIndex(reply, sourcesHeading)
	if i < 0 {
		i = strings.LastIndex(reply, unsupportedLead)
	}
	if i >= 0 {
		return strings.TrimSpace(reply[:i])
	}
	return reply
}

// chatMemory remembers conversations by the text of their last reply, at
// most max of them (the oldest is forgotten past it).
//
// Invariant: a remembered conversation is a snapshot no request changes:
// recall hands out copies.
type chatMemory struct {
	mu    sync.Mutex
	max   int
	convs map[[32]byte]*rag.Conversation
	order [][32]byte // keys, oldest first
}

func newChatMemory(max int) *chatMemory {
	return &chatMemory{max: max, convs: map[[32]byte]*rag.Conversation{}}
}

// replyKey is the key of a reply's text, white space around it ignored
// (clients trim).
func replyKey(reply string) [32]byte {
	return sha256.Sum256([]byte(strings.TrimSpace(reply)))
}

// remember keeps a snapshot of conv under the text of its last reply.
func (m *chatMemory) remember(reply string, conv *rag.Conversation) {
	snap := conv.Snapshot()
	key := replyKey(reply)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.convs[key]; !ok {
		m.order = append(m.order, key)
	}
	m.convs[key] = snap
	for len(m.order) > m.max {
		delete(m.convs, m.order[0])
		m.order = m.order[1:]
	}
}

// recall returns a copy of the conversation whose last reply was reply,
// or nil.
func (m *chatMemory) recall(reply string) *rag.Conversation {
	m.mu.Lock()
	conv := m.convs[replyKey(reply)]
	m.mu.Unlock()
	if conv == nil {
		return nil
	}
	return conv.Snapshot()
}
