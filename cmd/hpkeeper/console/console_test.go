package console

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/harm"
	"github.com/hpkeeper/hpkeeper/commands/hitprot"
	"github.com/hpkeeper/hpkeeper/commands/hpmpwp"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata")

// systems are the rule systems the console's tests play, as cmd/hpkeeper
// wires them.
var systems = []commands.System{hitprot.System{}, hpmpwp.System{}, harm.System{}}

// features returns a fresh set of the features the console's tests play,
// as cmd/hpkeeper wires them.
func features() []commands.Feature { return commandstest.Features() }

// fixedNow is the wall clock of the transcript tests.
var fixedNow = time.Date(2025, time.March, 14, 20, 0, 0, 0, time.UTC)

// newTestService returns a service over a fresh database in t.TempDir() with
// a fixed clock, and its dice queue: scripted faces only, so a transcript
// whose script does not queue every die it rolls fails (running out is an
// error, as with --dice), and every script replays the same in
// `hpkeeper console` without --seed.
func newTestService(t *testing.T) (*commands.Service, *dice.Scripted) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "hpkeeper.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	queue := dice.NewQueue(nil)
	svc := commands.New(db, queue, systems, features()...)
	svc.SetClock(func() time.Time { return fixedNow })
	return svc, queue
}

// TestTranscripts runs every testdata/*.txt script against the real handlers
// and compares the transcript with testdata/*.golden byte for byte. Run
// `go test ./cmd/hpkeeper/console -update` to rewrite the golden files, and
// read the diff before committing it.
func TestTranscripts(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) == 0 {
		t.Fatal("no testdata/*.txt scripts")
	}
	for _, script := range scripts {
		name := strings.TrimSuffix(filepath.Base(script), ".txt")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(script)
			if err != nil {
				t.Fatal(err)
			}
			svc, queue := newTestService(t)
			var out bytes.Buffer
			c := New(svc, queue, &out, Options{})
			if err := c.Run(context.Background(), bytes.NewReader(in)); err != nil {
				t.Errorf("Run(%s) = %v; want every line understood", script, err)
			}
			golden := strings.TrimSuffix(script, ".txt") + ".golden"
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got := out.String(); got != string(want) {
				t.Errorf("transcript of %s differs from %s (go test -update rewrites it):\n%s", script, golden, lineDiff(string(want), got))
			}
		})
	}
}

// lineDiff shows the first line where got and want differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  got:  %q\n  want: %q", i+1, gl, wl)
		}
	}
	return "(same lines)"
}

// fakeService answers requests with handle and records them.
type fakeService struct {
	reg    *commands.Registry
	handle func(r *commands.Request) *commands.Response
	got    []*commands.Request
}

func (f *fakeService) Registry() *commands.Registry { return f.reg }

func (f *fakeService) Handle(_ context.Context, r *commands.Request) *commands.Response {
	f.got = append(f.got, r)
	return f.handle(r)
}

// zeroHP is a fake of the hit-protection 0-HP choice: /damage posts the
// choice; Heroic Death opens a modal whose submit replaces the choice; Stay
// Up replaces it with the buttons disabled; /char delete posts an ephemeral
// confirmation.
func zeroHP(r *commands.Request) *commands.Response {
	choice := [][]commands.Button{{
		{Label: "Heroic Death", CustomID: "zero:1:hd"},
		{Label: "Stay Up", CustomID: "zero:1:up"},
		{Label: "Go Down", CustomID: "zero:1:down"},
	}}
	switch {
	case r.Kind == commands.KindCommand && r.Command == "damage":
		return &commands.Response{Content: commands.Escape(r.Options["target"]) + " drops to 0 HP and must choose.", Components: choice}
	case r.Kind == commands.KindCommand && r.Command == "char" && r.Subcommand == "delete":
		return &commands.Response{Content: "Delete " + commands.Escape(r.Options["name"]) + "?", Ephemeral: true,
			Components: [][]commands.Button{{{Label: "Delete", CustomID: "del:1", Style: commands.StyleDanger}, {Label: "Cancel", CustomID: "del:1:no"}}}}
	case r.Kind == commands.KindComponent && r.CustomID == "zero:1:hd":
		return &commands.Response{Modal: &commands.Modal{CustomID: "hdm:1", Title: "Heroic Death",
			Inputs: []commands.TextInput{{CustomID: "action", Label: "Action", Required: true, MaxLength: 20}}}}
	case r.Kind == commands.KindComponent && r.CustomID == "zero:1:up":
		var rows [][]commands.Button
		for _, row := range choice {
			var nr []commands.Button
			for _, b := range row {
				b.Disabled = true
				nr = append(nr, b)
			}
			rows = append(rows, nr)
		}
		return &commands.Response{Content: "Lister stays up.", Components: rows, UpdateMessage: true}
	case r.Kind == commands.KindComponent && r.CustomID == "del:1":
		return &commands.Response{Content: "Deleted.", UpdateMessage: true}
	case r.Kind == commands.KindModal:
		return &commands.Response{Content: "Heroic death: " + commands.Escape(r.Values["action"]), UpdateMessage: true}
	case r.Kind == commands.KindAutocomplete:
		return &commands.Response{Choices: []commands.Choice{{Name: "Lister", Value: "Lister"}}}
	}
	return &commands.Response{Content: "ok " + r.Line(), Ephemeral: true}
}

// session runs script on a console over the zeroHP fake and returns the
// transcript, Run's error and the requests sent.
func session(t *testing.T, script string) (string, error, []*commands.Request) {
	t.Helper()
	f := &fakeService{reg: commands.NewRegistry(systems, features()...), handle: zeroHP}
	var out bytes.Buffer
	c := New(f, dice.NewQueue(nil), &out, Options{})
	err := c.Run(context.Background(), strings.NewReader(script))
	return out.String(), err, f.got
}

func TestClickUpdatesMessage(t *testing.T) {
	out, err, got := session(t, `/damage target:Lister amount:4
click stay up
click Stay Up
click Go Down
`)
	if err != nil {
		t.Fatalf("Run = %v; want nil", err)
	}
	want := `> /damage target:Lister amount:4
Lister drops to 0 HP and must choose.
[Heroic Death] [Stay Up] [Go Down]
> click stay up
(message updated)
Lister stays up.
[-Heroic Death-] [-Stay Up-] [-Go Down-]
> click Stay Up
([-Stay Up-] is disabled: Discord would not send the click)
> click Go Down
([-Go Down-] is disabled: Discord would not send the click)
`
	if out != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", out, want)
	}
	if len(got) != 2 {
		t.Fatalf("sent %d requests; want 2 (disabled buttons send nothing)", len(got))
	}
	r := got[1]
	if r.Kind != commands.KindComponent || r.CustomID != "zero:1:up" || r.UserID != "you" || r.UserName != "you" ||
		r.ChannelID != "general" || r.GuildID != "console" || r.InteractionID != "2" {
		t.Errorf("click sent %+v; want a component request for zero:1:up from you in general, interaction 2", r)
	}
}

func TestModal(t *testing.T) {
	out, err, got := session(t, `submit too early
/damage target:Lister amount:4
:channel side
click Heroic Death
:channel general
@meghan click Heroic Death
submit not mine
:channel side
@meghan submit I hold the *door*
@meghan submit again
:channel general
click Stay Up
`)
	want := `> submit too early
error: not understood: you has no open modal to submit
> /damage target:Lister amount:4
Lister drops to 0 HP and must choose.
[Heroic Death] [Stay Up] [Go Down]
> :channel side
(now in #side)
> click Heroic Death
error: not understood: no message in #side that you can see has a button "Heroic Death"
> :channel general
(now in #general)
> @meghan click Heroic Death
(modal "Heroic Death": Action — answer with: submit <text>)
> submit not mine
error: not understood: you has no open modal to submit
> :channel side
(now in #side)
> @meghan submit I hold the *door*
(message updated)
Heroic death: I hold the *door*
> @meghan submit again
error: not understood: meghan has no open modal to submit
> :channel general
(now in #general)
> click Stay Up
error: not understood: no message in #general that you can see has a button "Stay Up"
`
	if out != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", out, want)
	}
	if err == nil || err.Error() != "5 script lines were not understood (lines 1, 4, 7, 10, 12)" {
		t.Errorf("Run = %v; want 5 script lines were not understood (lines 1, 4, 7, 10, 12)", err)
	}
	var modal *commands.Request
	for _, r := range got {
		if r.Kind == commands.KindModal {
			modal = r
		}
	}
	// The modal is answered in the channel it was opened in.
	if modal == nil || modal.CustomID != "hdm:1" || modal.UserID != "meghan" || modal.ChannelID != "general" ||
		len(modal.Values) != 1 || modal.Values["action"] != "I hold the *door*" {
		t.Errorf("submit sent %+v; want modal hdm:1 from meghan in general with action %q", modal, "I hold the *door*")
	}
}

func TestModalInputLimits(t *testing.T) {
	out, err, _ := session(t, `/damage target:Lister amount:4
click Heroic Death
submit
submit this answer is far too long
submit Charge!
`)
	want := `> /damage target:Lister amount:4
Lister drops to 0 HP and must choose.
[Heroic Death] [Stay Up] [Go Down]
> click Heroic Death
(modal "Heroic Death": Action — answer with: submit <text>)
> submit
error: not understood: "Action" needs an answer: submit <text>
> submit this answer is far too long
error: not understood: "Action" takes at most 20 characters (got 27)
> submit Charge!
(message updated)
Heroic death: Charge!
`
	if out != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", out, want)
	}
	if err == nil || err.Error() != "2 script lines were not understood (lines 3, 4)" {
		t.Errorf("Run = %v; want 2 script lines were not understood (line 3, 4)", err)
	}
}

func TestEphemeralButtons(t *testing.T) {
	out, err, got := session(t, `/char delete name:Lister
@meghan click Delete
click Delete
`)
	want := `> /char delete name:Lister
(only you see this) Delete Lister?
[Delete] [Cancel]
> @meghan click Delete
error: not understood: no message in #general that meghan can see has a button "Delete"
> click Delete
(message updated)
(only you see this) Deleted.
`
	if out != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", out, want)
	}
	if err == nil || err.Error() != "1 script line was not understood (line 2)" {
		t.Errorf("Run = %v; want 1 script line was not understood (line 2)", err)
	}
	if len(got) != 2 || got[1].CustomID != "del:1" {
		t.Errorf("sent %d requests; want the command and one click on del:1", len(got))
	}
}

func TestUsersChannelsAndPermissions(t *testing.T) {
	_, err, got := session(t, `/char list
:gm bob
@bob /char list
:user bob
/table gm action:add user:@meghan
:channel side
/char list
@you /char list
?/damage target:Li
`)
	if err != nil {
		t.Fatalf("Run = %v; want nil", err)
	}
	type who struct {
		user, channel string
		perms         int64
	}
	want := []who{{"you", "general", 0}, {"bob", "general", commands.ManageChannels}, {"bob", "general", commands.ManageChannels},
		{"bob", "side", 0}, {"you", "side", 0}, {"bob", "side", 0}}
	if len(got) != len(want) {
		t.Fatalf("sent %d requests; want %d", len(got), len(want))
	}
	for i, r := range got {
		if g := (who{r.UserID, r.ChannelID, r.Permissions}); g != want[i] || r.UserName != r.UserID {
			t.Errorf("request %d from %+v (name %q); want %+v", i+1, g, r.UserName, want[i])
		}
	}
	if r := got[2]; r.Options["user"] != "meghan" || r.Users["meghan"] != "meghan" {
		t.Errorf("/table gm sent options %v users %v; want user meghan known as meghan", r.Options, r.Users)
	}
	if r := got[5]; r.Kind != commands.KindAutocomplete || r.Focused != "target" || r.Options["target"] != "Li" {
		t.Errorf("?/damage sent %+v; want autocomplete focused on target", r)
	}
}

// TestScriptErrors checks that a script with lines that are not understood
// still runs every other line, prints an error for each bad line and makes
// Run fail; a command the bot refuses is not such a line.
func TestScriptErrors(t *testing.T) {
	svc, queue := newTestService(t)
	var out bytes.Buffer
	c := New(svc, queue, &out, Options{})
	script := `# a script with mistakes
/table setup system:hit-protection
/char create Lister
:dice 1,x
/char create name:Lister stats:hp=4
:frobnicate
/undo now:please
@meghan /char set name:Lister stats:hp=2
/char show name:Lister
`
	err := c.Run(context.Background(), strings.NewReader(script))
	if !errors.Is(err, ErrNotUnderstood) {
		t.Fatalf("Run = %v; want an error wrapping ErrNotUnderstood", err)
	}
	if got, want := err.Error(), "4 script lines were not understood (lines 3, 4, 6, 7)"; got != want {
		t.Errorf("Run = %q; want %q", got, want)
	}
	transcript := out.String()
	if n := strings.Count(transcript, "\nerror: "); n != 4 {
		t.Errorf("transcript has %d error lines; want 4:\n%s", n, transcript)
	}
	// The lines after the bad ones ran: Lister exists and is shown.
	if !strings.Contains(transcript, "> /char show name:Lister\n") || strings.Count(transcript, "Lister") < 4 {
		t.Errorf("the good lines did not all run:\n%s", transcript)
	}
	// meghan's refused change is a reply, not an error line.
	i := strings.Index(transcript, "> @meghan /char set")
	if i < 0 || !strings.HasPrefix(transcript[i:], "> @meghan /char set name:Lister stats:hp=2\n(only meghan sees this) ") {
		t.Errorf("meghan's refused /char set was not answered with an ephemeral reply:\n%s", transcript[max(i, 0):])
	}
}

func TestInteractive(t *testing.T) {
	f := &fakeService{reg: commands.NewRegistry(systems, features()...), handle: zeroHP}
	var out bytes.Buffer
	c := New(f, nil, &out, Options{Interactive: true, User: "gm", Channel: "tavern"})
	err := c.Run(context.Background(), strings.NewReader("/nope\n:dice 1\n:user bob\n:quit\n/char list\n"))
	if err != nil {
		t.Errorf("Run = %v; want nil in an interactive session", err)
	}
	got := out.String()
	for _, want := range []string{"gm@tavern> error: not understood: unknown command /nope", ":dice: this console has no dice queue",
		"gm@tavern> (now acting as bob)\nbob@tavern> "} {
		if !strings.Contains(got, want) {
			t.Errorf("interactive transcript lacks %q:\n%s", want, got)
		}
	}
	if len(f.got) != 0 {
		t.Errorf("sent %d requests; want none (nothing runs after :quit)", len(f.got))
	}
	if strings.Contains(got, "> /") {
		t.Errorf("interactive session echoed input:\n%s", got)
	}
}

func TestRunCancelled(t *testing.T) {
	f := &fakeService{reg: commands.NewRegistry(systems, features()...), handle: zeroHP}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	c := New(f, nil, &bytes.Buffer{}, Options{})
	if err := c.Run(ctx, r); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context = %v; want context.Canceled", err)
	}
}

func TestDiceDirective(t *testing.T) {
	queue := dice.NewQueue(nil)
	f := &fakeService{reg: commands.NewRegistry(systems, features()...), handle: zeroHP}
	var out bytes.Buffer
	c := New(f, queue, &out, Options{})
	if err := c.Exec(context.Background(), ":dice 5,2,1"); err != nil {
		t.Fatalf("Exec(:dice 5,2,1) = %v", err)
	}
	if err := c.Exec(context.Background(), ":dice -1 0 1"); err != nil {
		t.Fatalf("Exec(:dice -1 0 1) = %v", err)
	}
	if err := c.Exec(context.Background(), ":dice 7000"); !errors.Is(err, ErrNotUnderstood) {
		t.Errorf("Exec(:dice 7000) = %v; want ErrNotUnderstood", err)
	}
	var faces []int
	for _, d := range []dice.Die{{Sides: 6}, {Sides: 6}, {Sides: 6}, {Sides: 3, Fudge: true}, {Sides: 3, Fudge: true}, {Sides: 3, Fudge: true}} {
		n, err := queue.Roll(d)
		if err != nil {
			t.Fatalf("Roll(%v) = %v", d, err)
		}
		faces = append(faces, n)
	}
	if got, want := faces, []int{5, 2, 1, -1, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("queued faces rolled as %v; want %v", got, want)
	}
	if got, want := out.String(), "(next dice: 5, 2, 1; 3 queued)\n(next dice: -1, 0, 1; 6 queued)\n"; got != want {
		t.Errorf("output %q; want %q", got, want)
	}
}
