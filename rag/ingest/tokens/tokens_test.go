package tokens

import (
	"maps"
	"testing"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// The tokenizer's ranks are those tiktoken-go-loader's OfflineLoader
// reads from the same bundled file, every one of them, so counts are
// cl100k_base's; a file that is not bundled is an error.
func TestVocabularyIsTheOfflineLoaders(t *testing.T) {
	const url = "https://openaipublic.blob.core.windows.net/encodings/" + tokenEncoding + ".tiktoken"
	want, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(url)
	if err != nil {
		t.Fatal(err)
	}
	got, err := vocabulary{}.LoadTiktokenBpe(url)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || !maps.Equal(got, want) {
		t.Errorf("%d ranks, the offline loader's %d (equal: %v)", len(got), len(want), maps.Equal(got, want))
	}
	if _, err := (vocabulary{}).LoadTiktokenBpe("https://example.com/missing.tiktoken"); err == nil {
		t.Error("a file that is not bundled loaded")
	}
}
