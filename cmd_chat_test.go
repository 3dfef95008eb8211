package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestChatFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // in the error, or in the output for -h
	}{
		{[]string{"-h"}, "--resume [ID]"},
		{[]string{"--library", "x", "-h"}, "--numbering"},
		{[]string{"--numbering", "page"}, "use answer or conversation"},
		{[]string{"--cite-format", "xml"}, "use inline, json or sections"},
		{[]string{}, "needs a terminal"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			err := runChat(context.Background(), &stdio{strings.NewReader(""), &out, &errb}, c.args)
			if errors.Is(err, flag.ErrHelp) {
				if !strings.Contains(errb.String()+out.String(), c.want) {
					t.Errorf("help lacks %q:\n%s", c.want, errb.String())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
}

func TestResumeFlagTakesOptionalID(t *testing.T) {
	var r resumeFlag
	got := r.fix([]string{"--resume", "e96d6a868b2e2bd1", "--resume", "docs/"})
	want := []string{"--resume=e96d6a868b2e2bd1", "--resume", "docs/"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("fix: %q, want %q", got, want)
	}
}
