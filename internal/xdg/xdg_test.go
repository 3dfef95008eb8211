package xdg

import (
	"path/filepath"
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
			if got, err := CacheDir(); err != nil || got != c.wantCache {
				t.Errorf("CacheDir() = %q, %v; want %q", got, err, c.wantCache)
			}
		})
	}
}
