package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/retrieve"
)

// This file measures the answers of a long-document set: each question
// asked of the extractive answerer (no model) as the chat asks it, and
// judged by whether the answer quotes one of the question's snippets.

// longDocFollowups is the file of follow-up pairs in a long-document set.
const longDocFollowups = "followups.jsonl"

// answerTally counts how a set's answers did.
type answerTally struct {
	questions, quoted, declined int
}

// rate is the evidence hit rate: the share of the questions whose answer
// quotes their evidence.
func (t answerTally) rate() float64 {
	if t.questions == 0 {
		return 0
	}
	return float64(t.quoted) / float64(t.questions)
}

// String is the tally as ibid eval prints it.
func (t answerTally) String() string {
	return fmt.Sprintf("questions %d  evidence hit %.3f (%d)  declined %d", t.questions, t.rate(), t.quoted, t.declined)
}

// add counts o.
func (t *answerTally) add(o answerOutcome) {
	t.questions++
	if o.declined {
		t.declined++
	}
	if o.quoted {
		t.quoted++
	}
}

// answerOutcome is how one question's answer did.
type answerOutcome struct {
	id       string
	quoted   bool
	declined bool
	answer   string
}

// measureAnswers asks set's questions, each in a conversation of its own,
// and the follow-up pairs of dir's followups.jsonl (if any), each after
// the question it follows in one conversation, of the extractive answerer
// over lib with the pipeline's defaults (and rerank, if not nil), and
// returns the lines ibid eval prints. each, if not nil, is told of every
// answer.
func measureAnswers(ctx context.Context, lib *library.Library, dir string, set *retrieve.LongDoc, rerank retrieve.Reranker, each func(answerOutcome)) (string, error) {
	p := rag.NewPipeline(lib, rag.ExtractiveAnswerer(), rag.PipelineOptions{Rerank: rerank})
	ask := func(conv *rag.Conversation, q string) (string, error) {
		var b strings.Builder
		err := p.Answer(ctx, conv, q, func(e rag.Event) {
			if e.Type == rag.EventText {
				b.WriteString(e.Text)
			}
		})
		return b.String(), err
	}
	// judge counts q's answer in each tally and tells each.
	judge := func(q retrieve.LongDocQuestion, answer string, tallies ...*answerTally) {
		o := answerOutcome{id: q.ID, answer: answer}
		switch {
		case strings.HasPrefix(answer, rag.DeclineText):
			o.declined = true
		case q.Quotes(answer):
			o.quoted = true
		}
		for _, t := range tallies {
			t.add(o)
		}
		if each != nil {
			each(o)
		}
	}
	var single, first answerTally
	for _, q := range set.Questions {
		a, err := ask(rag.NewConversation("eval"), q.Question)
		if err != nil {
			return "", fmt.Errorf("question %s: %w", q.ID, err)
		}
		if q.Added == "" {
			judge(q, a, &single, &first)
		} else {
			judge(q, a, &single)
		}
	}
	line := fmt.Sprintf("%-12s %s", "answers", single)
	if first.questions < single.questions {
		// The questions written first, which the answerer's targets are
		// stated on, apart from those added later (LongDocQuestion.Added).
		line += fmt.Sprintf("  (first %d: evidence hit %.3f (%d)  declined %d)", first.questions, first.rate(), first.quoted, first.declined)
	}
	fu, err := retrieve.ReadLongDoc(filepath.Join(dir, longDocFollowups))
	if errors.Is(err, os.ErrNotExist) {
		return line, nil
	}
	if err != nil {
		return "", err
	}
	var pairs answerTally
	for _, q := range fu.Questions {
		if q.After == "" {
			return "", fmt.Errorf("follow-up %s (line %d) does not say which question it follows (\"after\")", q.ID, q.Line)
		}
		conv := rag.NewConversation("eval")
		if _, err := ask(conv, q.After); err != nil {
			return "", fmt.Errorf("follow-up %s: %w", q.ID, err)
		}
		a, err := ask(conv, q.Question)
		if err != nil {
			return "", fmt.Errorf("follow-up %s: %w", q.ID, err)
		}
		judge(q, a, &pairs)
	}
	return line + "\n" + fmt.Sprintf("%-12s %s", "follow-ups", pairs), nil
}
