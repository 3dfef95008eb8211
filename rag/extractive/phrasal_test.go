package extractive

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
)

// docFreq is a library's term statistics: the terms it holds, each in
// one segment of ten.
type docFreq map[string]bool

func (d docFreq) DocFreq(_ context.Context, terms []string) ([]int, int, error) {
	df := make([]int, len(terms))
	for i, t := range terms {
		if d[t] {
			df[i] = 1
		}
	}
	return df, 10, nil
}

// TestJoinedWords: a phrasal verb is searched as the one word documents
// write for it too ("back up" finds "Backups"), as keyword search
// analyses that word.
func TestJoinedWords(t *testing.T) {
	for q, want := range map[string]string{
		"How do I back up only ibid's tables?":     "backup",
		"Where is setting up a server described?":  "setup",
		"What happens when the request times out?": "timeout",
		"Can a failed import be rolled back?":      "rollback",
		"What is a citation token?":                "",
		"Does it pick them up?":                    "", // a pronoun is no verb
		"Is it worth it up front?":                 "", // a stop word is none either
	} {
		got := strings.Join(joinedWords(q), " ")
		if got != want {
			t.Errorf("joinedWords(%q) = %q, want %q", q, got, want)
		}
		if r := Resolve(q, nil); want != "" && !strings.HasSuffix(r.Query, " "+want) {
			t.Errorf("Resolve(%q) searches for %q, not %q", q, r.Query, want)
		}
	}
	if got := keyword.Tokenize("## Backups"); !slices.Equal(got, []string{"backup"}) {
		t.Errorf("keyword search analyses Backups as %q, not as the joined word", got)
	}
}

// TestJoinedTermsOnlyWhereHeld: the one-word form of a phrasal verb is a
// term of the question only when the library holds it (a word found
// nowhere would weigh as the rarest of all), and never without the
// library's statistics.
func TestJoinedTermsOnlyWhereHeld(t *testing.T) {
	q := "How do I back up only ibid's tables?"
	for _, c := range []struct {
		stats store.TermCounter
		want  bool
	}{{docFreq{"backup": true, "tabl": true}, true}, {docFreq{"tabl": true}, false}, {nil, false}} {
		qu := newQuestion(q, nil)
		qu.dropUnheld(context.Background(), c.stats)
		if got := slices.Contains(qu.terms, "backup"); got != c.want || len(qu.own) != len(qu.terms) || len(qu.focus) != len(qu.terms) {
			t.Errorf("stats %v: terms %q (own %v), want backup among them: %v", c.stats, qu.terms, qu.own, c.want)
		}
		if !slices.Contains(qu.terms, "back") || !slices.Contains(qu.terms, "tabl") {
			t.Errorf("terms %q lost the question's own words", qu.terms)
		}
	}
	// A question that writes the noun itself keeps it, held or not.
	qu := newQuestion("How often should I make a backup?", nil)
	qu.dropUnheld(context.Background(), docFreq{})
	if !slices.Contains(qu.terms, "backup") {
		t.Errorf("terms %q: the question's own backup was dropped", qu.terms)
	}
}

// backupsDoc is a section whose answer to a how-to question is a
// command in a fenced block, introduced by a sentence ending with a
// colon.
const backupsDoc = "## Backups\n\n" +
	"Everything ibid knows is in these tables, so the usual tools work:\n\n" +
	"```\n" +
	"pg_dump --format=custom --file=ibid.dump 'postgres://ibid@db/papers'        # everything\n" +
	"pg_dump --format=custom -t 'rag_*' --file=ibid.dump 'postgres://…'          # only ibid's tables\n" +
	"```\n\n" +
	"Restore into a database where pgvector is installed. Indexes are rebuilt on restore."

// TestHowToQuotesCommand: a how-to question whose answer is a command
// quotes the sentence that introduces the command's block with the block
// (its words count for the sentence), its colon kept and the span
// covering both; another kind of question quotes no block.
func TestHowToQuotesCommand(t *testing.T) {
	doc := store.Document{ID: "pg", Title: "PostgreSQL"}
	p := passage(1, doc, store.Segment{Text: backupsDoc, Section: []string{"PostgreSQL", "Backups"}})
	res, err := Answer(context.Background(), Query{Question: "How do I back up only ibid's tables?", Passages: []Passage{p}})
	if err != nil || res.Declined || len(res.Quotes) == 0 {
		t.Fatalf("%+v, %v", res, err)
	}
	q := res.Quotes[0]
	if q.Text != "Everything ibid knows is in these tables, so the usual tools work:" {
		t.Errorf("quote %q, want the sentence that introduces the command", q.Text)
	}
	if !strings.HasPrefix(q.Code, "```\npg_dump") || !strings.HasSuffix(q.Code, "```") || !strings.Contains(q.Code, "-t 'rag_*'") {
		t.Errorf("code %q, want the whole fenced block", q.Code)
	}
	if got := p.Segment.Text[q.Span.Start:q.Span.End]; !strings.HasPrefix(got, "Everything") || !strings.HasSuffix(got, "```\n") {
		t.Errorf("span %q, want the sentence and its block", got)
	}
	res, _ = Answer(context.Background(), Query{Question: "What do the usual tools dump of ibid's tables?", Passages: []Passage{p}})
	for _, q := range res.Quotes {
		if q.Code != "" {
			t.Errorf("a question that does not ask how quoted a block: %q", q.Code)
		}
	}
}

// TestBlockAfter: only a block right after the sentence, and of at
// most maxBlockLines lines, is the one it introduces.
func TestBlockAfter(t *testing.T) {
	long := "Run:\n\n```\n" + strings.Repeat("x\n", maxBlockLines+1) + "```\n"
	most := "Run:\n\n```\n" + strings.Repeat("x\n", maxBlockLines) + "```\n"
	for text, want := range map[string]bool{
		"Run:\n\n```\nmake\n```\n":               true,
		"Run:\n\nthen this.\n\n```\nmake\n```\n": false,
		most:                                     true,
		long:                                     false,
	} {
		b := blockAfter(text, len("Run:"), ingest.FencedBlocks(text))
		if got := b.End > b.Start; got != want {
			t.Errorf("%q: block %v, want one: %v", text, b, want)
		}
	}
}
