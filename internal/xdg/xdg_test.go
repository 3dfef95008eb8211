package xdg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cases := []struct {
		name      string
		data      string
		cache     string
		wantData  string
		wantCache string
	}{
		{"unset", "", "", filepath.Join(home, ".local", "share", "ibid"), filepath.Join(home, ".cache", "ibid")},
		{"set", "/srv/data", "/srv/cache", "/srv/data/ibid", "/srv/cache/ibid"},
		{"relative ignored", "rel/data", "rel/cache", filepath.Join(home, ".local", "share", "ibid"), filepath.Join(home, ".cache", "ibid")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("XDG_DATA_HOME", c.data)
			t.Setenv("XDG_CACHE_HOME", c.cache)
			if got, err := DataDir(); err != nil || got != c.wantData {
				t.Errorf("DataDir() = %q, %v; want %q", got, err, c.wantData)
			}
			if got := CacheDir(); got != c.wantCache {
				t.Errorf("CacheDir() = %q, want %q", got, c.wantCache)
			}
		})
	}
}

func TestNoHome(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	if d, err := DataDir(); err == nil {
		t.Errorf("DataDir() without a home = %q, want an error", d)
	} else if !strings.Contains(err.Error(), "XDG_DATA_HOME") {
		t.Errorf("error %q does not say what to set", err)
	}
	if got := CacheDir(); !strings.HasPrefix(got, os.TempDir()) {
		t.Errorf("CacheDir() without a home = %q, want one in %s", got, os.TempDir())
	}
}
