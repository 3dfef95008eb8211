package bib

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestAuthorYear(t *testing.T) {
	gao := Name{Given: "Luyu", Family: "Gao"}
	ma := Name{Given: "Xueguang", Family: "Ma"}
	lin := Name{Given: "Jimmy", Family: "Lin"}
	vdb := Name{Given: "Ana", Particle: "van der", Family: "Berg"}
	for _, c := range []struct {
		names []Name
		etAl  bool
		year  string
		want  string
	}{
		{[]Name{gao}, false, "2023", "Gao 2023"},
		{[]Name{gao, ma}, false, "2023", "Gao and Ma 2023"},
		{[]Name{gao, ma, lin}, false, "2023", "Gao et al. 2023"},
		{[]Name{gao}, true, "2023", "Gao et al. 2023"},
		{[]Name{vdb}, false, "2021", "van der Berg 2021"},
		{[]Name{{Family: "World Health Organization"}}, false, "", "World Health Organization"},
		{nil, false, "1999", "1999"},
		{nil, false, "", ""},
	} {
		if got := AuthorYear(c.names, c.etAl, c.year); got != c.want {
			t.Errorf("AuthorYear(%v, %v, %q) = %q, want %q", c.names, c.etAl, c.year, got, c.want)
		}
	}
}

// TestMetaRoundTrip: an entry stored as document metadata reads back the
// same, and the authors key is a JSON array of "Family, Given".
func TestMetaRoundTrip(t *testing.T) {
	e := Entry{Key: "muller2021", Type: "article-journal", Title: "Über die Entstehung", Year: "2021",
		Venue: "Zeitschrift", DOI: "10.1000/zit.2021.7", URL: "https://example.org/z", EtAl: true,
		Authors: []Name{{Given: "Jörg", Family: "Müller"}, {Given: "Ana", Particle: "van der", Family: "Berg"},
			{Given: "Martin Luther", Family: "King", Suffix: "Jr."}, {Family: "World Health Organization"}}}
	m := e.Meta("/home/ana/refs.bib")
	var authors []string
	if err := json.Unmarshal([]byte(m[MetaAuthors]), &authors); err != nil || authors[1] != "van der Berg, Ana" {
		t.Fatalf("authors key %q: %v", m[MetaAuthors], err)
	}
	if m[MetaSource] != "/home/ana/refs.bib" || m[MetaType] != "article-journal" || m[MetaCitekey] != "muller2021" {
		t.Errorf("meta %v", m)
	}
	back := FromMeta("ignored", m)
	if !reflect.DeepEqual(back, e) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, e)
	}
	// "; "-joined authors, as other tools may write them, read too.
	if got := MetaAuthorList("Gao, Luyu; Ma, Xueguang"); !reflect.DeepEqual(got, []string{"Gao, Luyu", "Ma, Xueguang"}) {
		t.Errorf("joined authors: %q", got)
	}
	if got := FromMeta("PDF Title", map[string]string{}); got.Title != "PDF Title" || got.Key != "" {
		t.Errorf("no metadata: %+v", got)
	}
}

func TestWriteCSL(t *testing.T) {
	b, err := WriteCSL([]Entry{
		{Key: "gao2023", Type: "paper-conference", Title: "Precise", Year: "2023", Venue: "ACL", DOI: "10.1/x",
			Authors: []Name{{Given: "Luyu", Family: "Gao"}, {Given: "Ana", Particle: "van der", Family: "Berg"}}},
		{Key: "who2019", Type: "book", Title: "Guidelines", Year: "2019", Venue: "WHO Press", Authors: []Name{{Family: "World Health Organization"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(b, &items); err != nil {
		t.Fatal(err)
	}
	want := `[{"DOI":"10.1/x","author":[{"family":"Gao","given":"Luyu"},{"family":"Berg","given":"Ana","non-dropping-particle":"van der"}],"container-title":"ACL","id":"gao2023","issued":{"date-parts":[[2023]]},"title":"Precise","type":"paper-conference"},` +
		`{"author":[{"literal":"World Health Organization"}],"id":"who2019","issued":{"date-parts":[[2019]]},"publisher":"WHO Press","title":"Guidelines","type":"book"}]`
	if got, _ := json.Marshal(items); string(got) != want {
		t.Errorf("CSL:\n got %s\nwant %s", got, want)
	}
	// What ParseCSL reads back is what was written.
	back, problems, err := ParseCSL(b)
	if err != nil || len(problems) > 0 || back[0].Authors[1].Particle != "van der" || back[1].Venue != "WHO Press" {
		t.Errorf("read back: %+v %v %v", back, problems, err)
	}
}
