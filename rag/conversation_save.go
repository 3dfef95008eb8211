package rag

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/internal/xdg"
)

// Conversations are saved one per file, DIR/ID.json, as the JSON of
// Conversation (every turn's events and sources, the aliases and the
// registry), so a reopened conversation redraws with the same numbers in
// every face.

// ConversationsDir is where conversations are saved: the conversations
// folder of ibid's data folder (see internal/xdg). It is not created.
func ConversationsDir() (string, error) {
	d, err := xdg.DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "conversations"), nil
}

// maxConversationFile bounds what is read of a saved conversation: a
// conversation of thousands of turns is a few megabytes.
const maxConversationFile = 256 << 20

// validID is what a conversation id may look like (NewConversation makes
// 16 hex digits); anything else could name a file outside the folder.
var validID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// conversationFile is the file of conversation id in dir.
func conversationFile(dir, id string) (string, error) {
	if !validID.MatchString(id) {
		return "", fmt.Errorf("%q is not a conversation id (ids are letters, digits, '-' and '_', as listed by the saved conversations)", id)
	}
	return filepath.Join(dir, id+".json"), nil
}

// Save writes the conversation to dir/ID.json, creating dir if needed. The
// write is atomic and durable: the file is written aside, synced, renamed
// over the old one and the folder synced, so a crash leaves the old version
// or the new one, never a torn file. It saves a snapshot, so it may run
// while another goroutine answers in c (the running answer is not saved).
// A conversation without turns is not saved.
func (c *Conversation) Save(dir string) error {
	snap := c.Snapshot()
	if len(snap.Turns) == 0 {
		return nil
	}
	path, err := conversationFile(dir, snap.ID)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(snap, "", " ")
	if err != nil {
		return fmt.Errorf("couldn't encode conversation %s: %w", snap.ID, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("couldn't save conversation %s: %w", snap.ID, err)
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("couldn't save conversation %s (check that %s is writable and the disk not full): %w", snap.ID, dir, err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("couldn't save conversation %s: %w", snap.ID, err)
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// LoadConversation reads conversation id from dir, or, when id is empty,
// the most recently saved one. An unknown id, an empty folder and a
// damaged file each give an error that says what to do; a damaged file is
// left as it is.
func LoadConversation(dir, id string) (*Conversation, error) {
	if id == "" {
		list, err := ListConversations(dir)
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			if s.Err == nil {
				id = s.ID
				break
			}
		}
		if id == "" {
			return nil, fmt.Errorf("no saved conversation in %s: ask a question first", dir)
		}
	}
	path, err := conversationFile(dir, id)
	if err != nil {
		return nil, err
	}
	data, err := regular.ReadFile(path, maxConversationFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no saved conversation %q in %s%s", id, dir, savedHint(dir))
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't read conversation %s: %w", id, err)
	}
	var c Conversation
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("conversation %s is damaged (%s is kept as it is; move it away to be rid of this message): %w", id, path, err)
	}
	if c.ID != id {
		return nil, fmt.Errorf("conversation file %s holds conversation %q, not %q: it was renamed; rename it back to %s.json", path, c.ID, id, c.ID)
	}
	if c.Aliases == nil {
		c.Aliases = map[string]int{}
	}
	return &c, nil
}

// savedHint names a few saved conversations, for an error about an
// unknown one.
func savedHint(dir string) string {
	list, err := ListConversations(dir)
	if err != nil || len(list) == 0 {
		return " (there are none yet)"
	}
	var ids []string
	for _, s := range list[:min(5, len(list))] {
		ids = append(ids, s.ID)
	}
	more := ""
	if len(list) > 5 {
		more = fmt.Sprintf(" and %d more", len(list)-5)
	}
	return " (the most recent: " + strings.Join(ids, ", ") + more + ")"
}

// SavedConversation describes a saved conversation, for a list.
type SavedConversation struct {
	ID       string
	Library  string
	Created  time.Time
	Modified time.Time // when the file was last written
	Turns    int
	First    string // the first question, on one line
	Err      error  // the file could not be read as a conversation (the other fields but ID and Modified are empty)
}

// ListConversations lists the conversations saved in dir, most recently
// saved first. A folder that does not exist holds none. Damaged files are
// listed with Err set, not left out, so that nothing vanishes silently.
func ListConversations(dir string) ([]SavedConversation, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't list saved conversations: %w", err)
	}
	var out []SavedConversation
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() || !validID.MatchString(id) {
			continue
		}
		s := SavedConversation{ID: id}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		s.Modified = info.ModTime()
		data, err := regular.ReadFile(filepath.Join(dir, e.Name()), maxConversationFile)
		var c Conversation
		if err == nil {
			err = json.Unmarshal(data, &c)
		}
		if err != nil {
			s.Err = fmt.Errorf("conversation %s is damaged: %w", id, err)
		} else {
			s.Library, s.Created, s.Turns = c.Library, c.Created, len(c.Turns)
			if len(c.Turns) > 0 {
				s.First = oneLine(c.Turns[0].Question)
			}
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Modified.Equal(out[j].Modified) {
			return out[i].Modified.After(out[j].Modified)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}
