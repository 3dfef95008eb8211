package enrich

import (
	"context"
	"errors"

	"github.com/ibid-dev/ibid/rag/ingest"
)

// questions writes each chunk's questions.
func (r *run) questions(ctx context.Context, d *ingest.Loaded, res result) {
	each(len(d.Segments), func(i int) {
		answer, err := r.call(ctx, questionMessages(d.Document.Title, d.Segments[i].Text), questionTokens, someQuestions)
		r.finish(ctx, d, i, err)
		if err == nil {
			res.questions[i] = parseQuestions(answer)
		}
	})
}

// someQuestions accepts an answer with at least one question.
func someQuestions(answer string) error {
	if len(parseQuestions(answer)) == 0 {
		return errors.New("no question could be read in the model's answer")
	}
	return nil
}
