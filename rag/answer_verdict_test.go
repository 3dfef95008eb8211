package rag

import (
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/ragtest"
	checker "github.com/ibid-dev/ibid/rag/support"
)

// supports are evs' support events, in order.
func supports(evs []Event) []*Support {
	var out []*Support
	for _, e := range evs {
		if e.Type == EventSupport {
			out = append(out, e.Support)
		}
	}
	return out
}

// TestSupportEventAfterTheSentence: each footnote gets one support event,
// after its reference and after the text that ends the sentence citing
// it (before the next sentence's text), with the whole sentence as its
// claim (the words after the reference too when the claim follows it);
// a passage that says it is Supported, one that does not Unsupported; the
// answer's text is the same as without checks.
func TestSupportEventAfterTheSentence(t *testing.T) {
	lib := ragtest.Sample()
	answer := "Honey bees pollinate almond orchards in California [source_1]. " +
		"According to the survey [source_2], sampling ran through the spring of the study year. " +
		"Counts were taken at dawn [source_3]."
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(answer, 4)})
	defer srv.Close()
	lib.All = true
	evs, err := collect(t, NewPipeline(lib, ModelAnswerer(connect(t, srv)), PipelineOptions{K: 3}), NewConversation("t"), "bees")
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	text := ""
	refAt := map[int]int{}
	for i, e := range evs {
		switch e.Type {
		case EventText:
			text += e.Text
		case EventRef:
			if _, ok := refAt[e.Number]; !ok {
				refAt[e.Number] = i
			}
		case EventSupport:
			n := e.Support.Number
			if at, ok := refAt[n]; !ok || at > i {
				t.Errorf("support %d before its reference", n)
			}
			// The sentence has ended: the text so far goes past a stop
			// after the reference; the next sentence has not begun.
			if !strings.Contains(text[len(text)-min(len(text), 8):], ".") && i+1 < len(evs) {
				t.Errorf("support %d sent after %q, before its sentence ended", n, text[max(0, len(text)-20):])
			}
		}
	}
	sup := supports(evs)
	if len(sup) != 3 {
		t.Fatalf("%d support events, want 3: %+v", len(sup), sup)
	}
	byN := map[int]*Support{}
	for _, s := range sup {
		if byN[s.Number] != nil {
			t.Errorf("footnote %d checked twice", s.Number)
		}
		byN[s.Number] = s
	}
	if s := byN[1]; s.Verdict != Supported || s.Sentence != "Honey bees pollinate almond orchards in California." || s.Claim != "Honey bees pollinate almond orchards in California" {
		t.Errorf("[1] %+v", s)
	}
	if s := byN[2]; s.Claim != "According to the survey, sampling ran through the spring of the study year." || s.Sentence != "Sampling ran through the spring of the study year." {
		t.Errorf("[2] claim %q, want the whole sentence", s.Claim)
	}
	if s := byN[3]; s.Verdict != Supported || s.Sentence != "Counts were taken at dawn and dusk." {
		t.Errorf("[3] %+v", s)
	}
	if got, want := plain(evs), strings.NewReplacer("[source_1]", "[1]", "[source_2]", "[2]", "[source_3]", "[3]").Replace(answer); got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

// TestSupportUnsupported: a footnote whose passage says something else is
// Unsupported, and the turn keeps the event.
func TestSupportUnsupported(t *testing.T) {
	lib := ragtest.Sample()
	lib.All = true
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split("Quantum computers factor large integers in seconds [source_1].", 5)})
	defer srv.Close()
	conv := NewConversation("t")
	evs, err := collect(t, NewPipeline(lib, ModelAnswerer(connect(t, srv)), PipelineOptions{K: 1}), conv, "quantum")
	if err != nil {
		t.Fatal(err)
	}
	sup := supports(evs)
	if len(sup) != 1 || sup[0].Verdict != Unsupported || sup[0].SegmentID != "" {
		t.Fatalf("supports %+v", sup)
	}
	if v := TurnVerdicts(&conv.Turns[0]); v[1] == nil || v[1].Verdict != Unsupported {
		t.Errorf("the turn's verdicts %+v", v)
	}
}

// TestExtractiveSupportedByConstruction: the extractive answerer's
// footnotes are supported by the sentence it quoted, said so (Quoted), with
// nothing computed.
func TestExtractiveSupportedByConstruction(t *testing.T) {
	lib := ragtest.Sample()
	evs, err := collect(t, NewPipeline(lib, nil, PipelineOptions{}), NewConversation("t"), "Why do bee colonies collapse?")
	if err != nil {
		t.Fatal(err)
	}
	sup := supports(evs)
	if len(sup) == 0 {
		t.Fatal("no support events")
	}
	for _, s := range sup {
		if s.Verdict != Supported || !s.Quoted || s.Score != 1 || s.Sentence == "" || !strings.Contains(plain(evs), s.Sentence) {
			t.Errorf("%+v", s)
		}
	}
}

// judgeOn is a model pass asking the fake server srv.
func judgeOn(t *testing.T, srv *llmtest.Server) *checker.Judge {
	t.Helper()
	m := llm.NewModel(llm.New(llm.Config{BaseURL: srv.BaseURL(), Policy: llm.Policy{Retries: 1, Base: 1e6, Max: 2e6}}), "minicheck")
	return checker.NewJudge(m, checker.JudgeOptions{})
}

// TestModelPassRefines: an uncertain footnote is judged by the model, its
// verdict sent again refined; the done event names the model.
func TestModelPassRefines(t *testing.T) {
	lib := ragtest.Sample()
	lib.All = true
	answer := "Beekeepers treat hives against mites every winter with oxalic acid [source_5]."
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(answer, 5)})
	defer srv.Close()
	judge := llmtest.New(llmtest.Reply{Chunks: []string{"No"}})
	defer judge.Close()
	evs, err := collect(t, NewPipeline(lib, ModelAnswerer(connect(t, srv)), PipelineOptions{K: 5, Verify: judgeOn(t, judge)}), NewConversation("t"), "bees")
	if err != nil {
		t.Fatal(err)
	}
	sup := supports(evs)
	if len(sup) != 2 || sup[0].Verdict != Partial || sup[0].Refined || sup[1].Verdict != Unsupported || !sup[1].Refined || sup[1].Number != 1 {
		t.Fatalf("supports %+v", sup)
	}
	if last := evs[len(evs)-1]; last.Type != EventDone || last.Info.Verifier != "minicheck" {
		t.Errorf("done %+v", last.Info)
	}
	if n := len(judge.Requests()); n != 1 {
		t.Errorf("the judge was asked %d times", n)
	}
}

// TestModelPassFailsOnce: a judge that fails leaves the lexical verdicts,
// asks nothing more, and the answer says so once.
func TestModelPassFailsOnce(t *testing.T) {
	lib := ragtest.Sample()
	lib.All = true
	answer := "Beekeepers treat hives against mites every winter with oxalic acid [source_5]. " +
		"Hives visit thousands of orchards in the north every summer [source_1]."
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(answer, 5)})
	defer srv.Close()
	judge := llmtest.New(llmtest.Reply{Status: 500})
	defer judge.Close()
	evs, err := collect(t, NewPipeline(lib, ModelAnswerer(connect(t, srv)), PipelineOptions{K: 5, Verify: judgeOn(t, judge)}), NewConversation("t"), "bees")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range supports(evs) {
		if s.Refined {
			t.Errorf("refined by a failing judge: %+v", s)
		}
	}
	note := evs[len(evs)-1].Info.VerifyNote
	if strings.Count(note, "checked without the model") != 1 {
		t.Errorf("note %q", note)
	}
}
