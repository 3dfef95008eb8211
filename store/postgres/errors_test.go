package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

func TestLocationErrorsHidePasswords(t *testing.T) {
	for _, s := range []string{
		"cannot parse `postgres://ibid:s3cret@db:5432/x`: bad port",
		"dial error (host=db user=ibid password=s3cret)",
	} {
		if got := redactString(s); strings.Contains(got, "s3cret") {
			t.Errorf("redactString(%q) = %q", s, got)
		}
	}
	_, err := Open(context.Background(), "postgres://ibid:s3cret@db:notaport/x", store.Options{})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "postgres://user:password@host:5432/database") {
		t.Errorf("bad location: %v", err)
	}
}
