package enrich

import (
	"strings"

	"github.com/ibid-dev/ibid/rag/llm"
)

// PromptVersion names the prompts below. It is part of every cache key:
// change it whenever a prompt changes, so that no answer to an old prompt
// is reused.
const PromptVersion = "1"

// The most tokens each kind of answer may have.
const (
	contextTokens        = 150
	summaryTokens        = 200
	sectionSummaryTokens = 300
	documentSummaryToks  = 400
	questionTokens       = 250
)

const contextSystem = "You situate chunks of a document within the whole document, to improve search retrieval of the chunk. " +
	"Write in the document's language."

// contextInstruction is Anthropic's contextual-retrieval instruction.
const contextInstruction = "Please give a short succinct context to situate this chunk within the overall document " +
	"for the purposes of improving search retrieval of the chunk. Answer only with the succinct context and nothing else."

// documentPrefix is the part of a contextual prompt that comes before the
// chunk when the whole document fits: the same bytes for every chunk of
// the document, so that servers reuse the cached prefix.
func documentPrefix(text string) string {
	return "<document>\n" + text + "\n</document>\n"
}

// summaryPrefix is the part of a contextual prompt that comes before the
// chunk for a long document: its summary and its section's, the same bytes
// for every chunk of one section.
func summaryPrefix(docSummary, section, sectionSummary string) string {
	return "<document_summary>\n" + docSummary + "\n</document_summary>\n" +
		"<section_summary section=\"" + section + "\">\n" + sectionSummary + "\n</section_summary>\n"
}

// contextMessages asks for a chunk's context; prefix is documentPrefix or
// summaryPrefix. The system message and prefix come first, the chunk
// after them.
func contextMessages(prefix, chunk string, long bool) []llm.Message {
	lead := "Here is the chunk we want to situate within the whole document"
	if long {
		lead = "Here is the chunk we want to situate within the document summarised above"
	}
	return []llm.Message{
		{Role: llm.RoleSystem, Content: contextSystem},
		{Role: llm.RoleUser, Content: prefix + lead + "\n<chunk>\n" + chunk + "\n</chunk>\n" + contextInstruction},
	}
}

const summarySystem = "You summarise parts of a document so that search can find them. Write in the document's language."

// sectionSummaryMessages asks for the summary of one section (or part of a
// section) of a long document.
func sectionSummaryMessages(title, section, text string) []llm.Message {
	return []llm.Message{
		{Role: llm.RoleSystem, Content: summarySystem},
		{Role: llm.RoleUser, Content: "<document_title>" + title + "</document_title>\n" +
			"<section title=\"" + section + "\">\n" + text + "\n</section>\n" +
			"Summarise this section in a few sentences: its subject and its key names, terms and findings, " +
			"so that a reader of one of its passages knows where it stands. Answer only with the summary."},
	}
}

// documentSummaryMessages asks for the summary of a long document from the
// summaries of its sections, in reading order.
func documentSummaryMessages(title string, sections, summaries []string) []llm.Message {
	var b strings.Builder
	b.WriteString("<document_title>" + title + "</document_title>\n<section_summaries>\n")
	for i, s := range summaries {
		b.WriteString("## " + sections[i] + "\n" + s + "\n\n")
	}
	b.WriteString("</section_summaries>\nSummarise the whole document in one short paragraph: its subject, " +
		"its purpose and its main points. Answer only with the summary.")
	return []llm.Message{{Role: llm.RoleSystem, Content: summarySystem}, {Role: llm.RoleUser, Content: b.String()}}
}

// windowMessages asks for a chunk's summary, with the previous chunk's
// summary as context ("" for the first chunk, or when it failed).
func windowMessages(title, previous, chunk string) []llm.Message {
	if previous == "" {
		previous = "(none: this is the first passage)"
	}
	return []llm.Message{
		{Role: llm.RoleSystem, Content: summarySystem},
		{Role: llm.RoleUser, Content: "<document_title>" + title + "</document_title>\n" +
			"<previous_summary>\n" + previous + "\n</previous_summary>\n" +
			"<passage>\n" + chunk + "\n</passage>\n" +
			"Summarise this passage in one to three sentences for search retrieval. Use the previous summary only " +
			"to resolve what the passage refers to (names, acronyms, the subject under discussion). " +
			"Answer only with the summary."},
	}
}

// questionMessages asks for the questions a chunk answers.
func questionMessages(title, chunk string) []llm.Message {
	return []llm.Message{
		{Role: llm.RoleSystem, Content: "You write the questions a researcher would ask that a passage of a document answers. " +
			"Write in the document's language."},
		{Role: llm.RoleUser, Content: "<document_title>" + title + "</document_title>\n" +
			"<passage>\n" + chunk + "\n</passage>\n" +
			"Write 3 to 5 distinct questions that this passage answers, as a researcher searching their documents " +
			"would ask them; each must make sense on its own (name the subject, never \"this passage\"). " +
			"Answer with the questions only, one per line, numbered."},
	}
}
