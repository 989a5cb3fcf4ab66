package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
)

// fakeTrackerREST is a loopback Discord REST server for channel messages:
// it answers a post with a message id and records every edit, refusing
// overlapping edits of one message.
type fakeTrackerREST struct {
	mu       sync.Mutex
	posts    []string
	edits    []string
	inFlight atomic.Int32
	overlap  atomic.Bool
	delay    time.Duration
}

func (f *fakeTrackerREST) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/channels/chan-1/messages"):
		f.mu.Lock()
		f.posts = append(f.posts, string(body))
		f.mu.Unlock()
		fmt.Fprint(w, `{"id":"msg-1","channel_id":"chan-1"}`)
	case r.Method == http.MethodPatch && strings.HasSuffix(r.URL.Path, "/channels/chan-1/messages/msg-1"):
		if f.inFlight.Add(1) > 1 {
			f.overlap.Store(true)
		}
		time.Sleep(f.delay)
		f.mu.Lock()
		f.edits = append(f.edits, string(body))
		f.mu.Unlock()
		f.inFlight.Add(-1)
		fmt.Fprint(w, `{"id":"msg-1","channel_id":"chan-1"}`)
	default:
		http.Error(w, `{"message":"unexpected"}`, http.StatusNotFound)
	}
}

// countingSource renders a tracker whose text is the current version.
type countingSource struct {
	version atomic.Int64
	id      atomic.Value
}

func (c *countingSource) Tracker(channelID string) (string, *commands.Response, error) {
	id, _ := c.id.Load().(string)
	return id, &commands.Response{Embeds: []commands.Embed{{Title: "Tracker", Description: fmt.Sprintf("version %d", c.version.Load())}}}, nil
}

func TestTrackerEditsSerializedLatestWins(t *testing.T) {
	fake := &fakeTrackerREST{delay: 15 * time.Millisecond}
	session := restSession(t, fake)
	src := &countingSource{}
	tr := NewTracker(src, session, zerolog.Nop())

	_, first, _ := src.Tracker("chan-1")
	id, err := tr.PostTracker(context.Background(), "chan-1", first)
	if err != nil || id != "msg-1" {
		t.Fatalf("post = %q, %v", id, err)
	}
	src.id.Store(id)
	if len(fake.posts) != 1 || !strings.Contains(fake.posts[0], "version 0") {
		t.Fatalf("posts = %q", fake.posts)
	}

	const changes = 50
	for i := 1; i <= changes; i++ {
		src.version.Store(int64(i))
		tr.Changed("chan-1")
		time.Sleep(time.Millisecond)
	}
	tr.Wait()

	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.overlap.Load() {
		t.Error("two edits of one message were in flight at once")
	}
	if len(fake.edits) == 0 || len(fake.edits) >= changes {
		t.Errorf("%d edits for %d changes: want some, fewer than the changes", len(fake.edits), changes)
	}
	var last struct {
		Embeds []struct{ Description string } `json:"embeds"`
	}
	if err := json.Unmarshal([]byte(fake.edits[len(fake.edits)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if len(last.Embeds) != 1 || last.Embeds[0].Description != fmt.Sprintf("version %d", changes) {
		t.Errorf("final edit = %s, want version %d", fake.edits[len(fake.edits)-1], changes)
	}
	// Versions only go forward: the latest state wins.
	prev := -1
	for _, e := range fake.edits {
		var v int
		i := strings.Index(e, "version ")
		fmt.Sscanf(e[i+len("version "):], "%d", &v)
		if v <= prev {
			t.Errorf("edit with version %d after %d", v, prev)
		}
		prev = v
	}

	// A change that renders the same tracker sends no edit.
	n := len(fake.edits)
	fake.mu.Unlock()
	tr.Changed("chan-1")
	tr.Wait()
	fake.mu.Lock()
	if len(fake.edits) != n {
		t.Errorf("an unchanged tracker was edited again")
	}
}

// TestTrackerWithService drives a real service: /table tracker posts the
// message and each damage edits it with the new HP.
func TestTrackerWithService(t *testing.T) {
	fake := &fakeTrackerREST{}
	session := restSession(t, fake)
	svc, db := openService(t, filepath.Join(t.TempDir(), "t.db"), nil)
	defer db.Close()
	trk := tracker.Of(svc.Registry())
	tr := NewTracker(trk, session, zerolog.Nop())
	trk.SetPoster(tr, "")
	svc.OnChange(tr.Changed)

	do := func(user string, perms int64, cmd, sub string, opts map[string]string) *commands.Response {
		return svc.Handle(context.Background(), &commands.Request{Kind: commands.KindCommand, ChannelID: "chan-1", GuildID: "g",
			UserID: user, UserName: user, Permissions: perms, Command: cmd, Subcommand: sub, Options: opts})
	}
	do("gm", commands.ManageChannels, "table", "setup", map[string]string{"system": "hit-protection"})
	do("ann", 0, "char", "create", map[string]string{"name": "Lister", "stats": "class=fighter level=1 hp=8"})
	resp := do("gm", commands.ManageChannels, "table", "tracker", nil)
	if !resp.Ephemeral || !strings.Contains(resp.Content, "Posted the tracker") {
		t.Fatalf("tracker reply = %+v", resp)
	}
	tr.Wait()
	do("ann", 0, "damage", "", map[string]string{"target": "Lister", "amount": "3"})
	tr.Wait()
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.posts) != 1 || !strings.Contains(fake.posts[0], "HP ██████████ 8/8") {
		t.Fatalf("posts = %q", fake.posts)
	}
	if len(fake.edits) != 1 || !strings.Contains(fake.edits[0], "HP ██████░░░░ 5/8") {
		t.Fatalf("edits = %q", fake.edits)
	}
}

// sharedMessage is one Discord message two fake REST servers edit, each
// after its own delay (a replica far from Discord, one near), in the order
// the edits arrive.
type sharedMessage struct {
	mu    sync.Mutex
	final string
	edits int
}

type delayedREST struct {
	msg   *sharedMessage
	delay time.Duration
}

func (d delayedREST) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPatch {
		http.Error(w, `{"message":"unexpected"}`, http.StatusNotFound)
		return
	}
	time.Sleep(d.delay)
	d.msg.mu.Lock()
	d.msg.final, d.msg.edits = string(body), d.msg.edits+1
	d.msg.mu.Unlock()
	fmt.Fprint(w, `{"id":"msg-1","channel_id":"chan-1"}`)
}

// TestTrackerReplicasLatestWins: two replicas edit one tracker message. The
// far one renders version 1 and edits slowly; meanwhile the table changes
// to version 2, which the near one renders and edits first; the far one's
// stale edit then lands last. With WithReplicas the far one renders again
// after its edit and sends version 2, so the message ends at the latest
// state (without it, it would stay at version 1), whatever order the edits
// land in.
func TestTrackerReplicasLatestWins(t *testing.T) {
	msg := &sharedMessage{}
	src := &countingSource{}
	src.id.Store("msg-1")
	trackers := make([]*Tracker, 2)
	for i, delay := range []time.Duration{300 * time.Millisecond, 0} {
		trackers[i] = NewTracker(src, restSession(t, delayedREST{msg: msg, delay: delay}), zerolog.Nop(), WithReplicas())
	}
	src.version.Store(1)
	trackers[0].Changed("chan-1") // the far replica: version 1, slowly
	time.Sleep(50 * time.Millisecond)
	src.version.Store(2)
	trackers[1].Changed("chan-1") // the near one: version 2, at once
	trackers[1].Wait()
	trackers[0].Wait()
	msg.mu.Lock()
	defer msg.mu.Unlock()
	if !strings.Contains(msg.final, "version 2") {
		t.Errorf("the message ends as %s after %d edits; want version 2", msg.final, msg.edits)
	}
}
