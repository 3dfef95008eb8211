package figures

import "testing"

func TestEnabled(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "1": true, "yes": true} {
		t.Setenv(Env, v)
		if got := Enabled(); got != want {
			t.Errorf("%s=%q: Enabled() = %v, want %v", Env, v, got, want)
		}
	}
}

func TestRequire(t *testing.T) {
	for v, wantRun := range map[string]bool{"": false, "1": true} {
		t.Setenv(Env, v)
		ran := false
		t.Run("sub", func(t *testing.T) {
			Require(t)
			ran = true
		})
		if ran != wantRun {
			t.Errorf("%s=%q: the test ran = %v, want %v", Env, v, ran, wantRun)
		}
	}
}

func TestCommand(t *testing.T) {
	want := "IBID_FIGURES=1 go test -race -run '^TestSciFactFigures$' ./internal/figures"
	if got := Command("TestSciFactFigures/dense"); got != want {
		t.Errorf("Command = %q, want %q", got, want)
	}
}
