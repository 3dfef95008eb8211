package cli

import (
	"net"
	"strings"
	"testing"
)

func TestBaseURLSetting(t *testing.T) {
	for _, c := range []struct{ base, env, want string }{
		{"", "", ""},
		{"", "http://a/v1", ""},
		{"http://a/v1", "http://a/v1", "OPENAI_BASE_URL"},
		{"http://b/v1", "http://a/v1", "--base-url"},
		{"http://b/v1", "", "--base-url"},
	} {
		if got := baseURLSetting(c.base, c.env); got != c.want {
			t.Errorf("baseURLSetting(%q, %q) = %q, want %q", c.base, c.env, got, c.want)
		}
	}
}

// TestAskNoModelAnswered: with nothing listening at the base URL, ask says
// where no model answered and advises checking only what the user set,
// never running Ollama, and never calls the empty answer partial.
func TestAskNoModelAnswered(t *testing.T) {
	docs := askEnv(t)
	runCmd(t, "add", docs)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/v1"
	l.Close() // nothing listens there now

	check := func(name, advice string, args ...string) {
		t.Helper()
		code, out, errs := runCmd(t, append([]string{"ask", "--model", "m"}, append(args, "tides?")...)...)
		all := out + errs
		if code == 0 || !strings.Contains(errs, "no model answered at "+base+": connection refused") ||
			!strings.Contains(errs, "(check "+advice+")") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, code, out, errs)
		}
		if strings.Contains(all, "Ollama") || strings.Contains(all, "partial") {
			t.Errorf("%s: advice beyond what was set, or a partial answer: %q", name, all)
		}
	}
	check("flag", "--base-url", "--base-url", base)
	t.Setenv("OPENAI_BASE_URL", base)
	check("environment", "OPENAI_BASE_URL")
}
