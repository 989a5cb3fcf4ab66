// Package commandstest runs the commands kernel for tests, in the spirit of
// net/http/httptest: a Table is a Service over a real bbolt file in
// t.TempDir() with scripted dice, driven by command lines as a user types
// them (`/damage target:Lister amount:4`), and its checks fail the test
// with what was answered. The kernel's tests and each system's tests use it.
package commandstest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Table is a test table: a Service over a real bbolt file with scripted
// dice and a clock that moves one minute per request, acting in one
// channel of guild "g1". Users are named by their user ids.
type Table struct {
	// T is the test the table fails.
	T testing.TB
	// Svc is the service under test.
	Svc *commands.Service
	// DB is the database the service writes (closed when the test ends).
	DB *storage.DB
	// Dice hands out the faces a test pushes; running out is an error.
	Dice *dice.Scripted
	// Channel is the channel (the table) every request is sent in.
	Channel string
}

// New returns a Table in channel "chan-1" whose service plays systems and
// the features (Features).
func New(t testing.TB, systems ...commands.System) *Table {
	t.Helper()
	db := OpenDB(t)
	src := dice.NewScripted()
	svc := commands.New(db, src, systems, Features()...)
	at := time.Date(2026, 11, 29, 19, 0, 0, 0, time.UTC)
	svc.SetClock(func() time.Time { at = at.Add(time.Minute); return at })
	return &Table{T: t, Svc: svc, DB: db, Dice: src, Channel: "chan-1"}
}

// OpenDB opens a fresh bbolt file in t.TempDir(), closed when the test ends.
func OpenDB(t testing.TB) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "hpkeeper.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Do runs a command line such as `/char create name:Lister stats:"hp=4"` as
// user (whose name is the user id); a first character '!' of user gives the
// Manage Channels permission.
func (tb *Table) Do(user, line string) *commands.Response {
	tb.T.Helper()
	req := tb.Request(user, line)
	return tb.Svc.Handle(context.Background(), req)
}

// State renders the stored state of the table's channel: the table, every
// character and the number of events, for a test that checks a refusal
// changed nothing.
func (tb *Table) State() string {
	tb.T.Helper()
	var b strings.Builder
	err := tb.DB.View(func(tx *storage.Tx) error {
		t, err := tx.Table(tb.Channel)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "table %+v\n", *t)
		cs, err := tx.Characters(tb.Channel)
		if err != nil {
			return err
		}
		for _, c := range cs {
			fmt.Fprintf(&b, "%d %s %s %s\n", c.ID, c.Name, c.OwnerID, c.Sheet)
		}
		seq, err := tx.LastEventSeq(tb.Channel)
		fmt.Fprintf(&b, "events %d\n", seq)
		return err
	})
	if err != nil {
		tb.T.Fatal(err)
	}
	return b.String()
}

// PatchSheet sets fields of the named character's stored sheet (by their
// JSON names), for a state the commands reach only through a long game,
// such as a hidden NPC bleeding out: a test of what players read of it.
func (tb *Table) PatchSheet(name string, fields map[string]any) {
	tb.T.Helper()
	err := tb.DB.Update(func(tx *storage.Tx) error {
		c, err := tx.CharacterByName(tb.Channel, name)
		if err != nil {
			return err
		}
		sheet := map[string]any{}
		if err := json.Unmarshal(c.Sheet, &sheet); err != nil {
			return err
		}
		maps.Copy(sheet, fields)
		if c.Sheet, err = json.Marshal(sheet); err != nil {
			return err
		}
		return tx.PutCharacter(c)
	})
	if err != nil {
		tb.T.Fatal(err)
	}
}

// ExportFile runs /table export as user and returns the JSON file, failing
// the test unless the reply is ephemeral with one JSON file.
func (tb *Table) ExportFile(user string) []byte {
	tb.T.Helper()
	resp := tb.Do(user, "/table export")
	if !resp.Ephemeral || len(resp.Files) != 1 || resp.Files[0].ContentType != "application/json" {
		tb.T.Fatalf("export reply %q, files %d; want an ephemeral reply with one JSON file", resp.Content, len(resp.Files))
	}
	return resp.Files[0].Data
}

// ImportFile runs /table import as user with data attached.
func (tb *Table) ImportFile(user string, data []byte) *commands.Response {
	tb.T.Helper()
	req := tb.Request(user, "/table import file:table.json")
	req.Attachments = map[string]*commands.Attachment{"file": {Filename: "table.json", Data: data}}
	return tb.Svc.Handle(context.Background(), req)
}

// Request returns the request Do sends for line as user: a word without
// ':' after the command is the subcommand, name:value words the options
// ("double quoted" values may hold spaces; words without ':' after an
// option go on its value, as Discord takes "target:Sir Bob"), and each
// value also names a user, as user options do.
func (tb *Table) Request(user, line string) *commands.Request {
	tb.T.Helper()
	perms := int64(0)
	if strings.HasPrefix(user, "!") {
		user = user[1:]
		perms = commands.ManageChannels
	}
	words := splitLine(line)
	req := &commands.Request{
		Kind: commands.KindCommand, ChannelID: tb.Channel, GuildID: "g1",
		UserID: user, UserName: user, Permissions: perms,
		Options: map[string]string{}, Users: map[string]string{},
	}
	req.Command = strings.TrimPrefix(words[0], "/")
	last := "" // the option given last
	for _, w := range words[1:] {
		k, v, ok := strings.Cut(w, ":")
		switch {
		case !ok && last != "": // a value with spaces, unquoted as in Discord
			delete(req.Users, req.Options[last])
			req.Options[last] += " " + w
			req.Users[req.Options[last]] = req.Options[last]
		case !ok:
			req.Subcommand = w
		default:
			req.Options[k], req.Users[v], last = v, v, k
		}
	}
	return req
}

// Press presses the button labelled label in resp as user; a missing
// button fails the test.
func (tb *Table) Press(user string, resp *commands.Response, label string) *commands.Response {
	tb.T.Helper()
	for _, row := range resp.Components {
		for _, b := range row {
			if b.Label == label {
				return tb.Svc.Handle(context.Background(), &commands.Request{
					Kind: commands.KindComponent, ChannelID: tb.Channel, GuildID: "g1",
					UserID: user, UserName: user, CustomID: b.CustomID,
				})
			}
		}
	}
	tb.T.Fatalf("no button %q in %+v", label, resp)
	return nil
}

// PressRow presses the button labelled label in row i of resp.
func (tb *Table) PressRow(user string, resp *commands.Response, i int, label string) *commands.Response {
	tb.T.Helper()
	return tb.Press(user, &commands.Response{Components: resp.Components[i : i+1]}, label)
}

// Submit answers the modal resp opened, as user, with text in its first
// input; a reply without a modal fails the test.
func (tb *Table) Submit(user string, resp *commands.Response, text string) *commands.Response {
	tb.T.Helper()
	if resp.Modal == nil {
		tb.T.Fatalf("no modal in %+v", resp)
	}
	return tb.Svc.Handle(context.Background(), &commands.Request{
		Kind: commands.KindModal, ChannelID: tb.Channel, GuildID: "g1",
		UserID: user, UserName: user, CustomID: resp.Modal.CustomID,
		Values: map[string]string{resp.Modal.Inputs[0].CustomID: text},
	})
}

// NoDiceLeft fails the test when scripted dice were pushed but not rolled.
func (tb *Table) NoDiceLeft() {
	tb.T.Helper()
	if n := tb.Dice.Remaining(); n != 0 {
		tb.T.Errorf("%d scripted dice left unused", n)
	}
}

// OK fails unless resp is a public reply, and returns its Text.
func (tb *Table) OK(resp *commands.Response) string {
	tb.T.Helper()
	if resp.Ephemeral {
		tb.T.Fatalf("got ephemeral reply %q; want a public one", resp.Content)
	}
	return Text(resp)
}

// Private fails unless resp is an ephemeral reply, one only its caller
// reads (a hidden NPC's creation, for the GM who made it), and returns its
// Text.
func (tb *Table) Private(resp *commands.Response) string {
	tb.T.Helper()
	if !resp.Ephemeral || resp.Outcome != commands.OutcomeOK {
		tb.T.Fatalf("got %q (ephemeral %v, outcome %v); want an ephemeral answer", resp.Content, resp.Ephemeral, resp.Outcome)
	}
	return Text(resp)
}

// Refused fails unless resp is an ephemeral refusal containing want.
func (tb *Table) Refused(resp *commands.Response, want string) {
	tb.T.Helper()
	if !resp.Ephemeral || !strings.Contains(resp.Content, want) {
		tb.T.Fatalf("got %q (ephemeral %v); want an ephemeral reply containing %q", resp.Content, resp.Ephemeral, want)
	}
}

// Text flattens a response's content and embeds (title, description,
// fields as "name: value", footer), and those of the follow-ups that
// continue it (Continues: a reply past Discord's limits), removing
// markdown escapes as the console does.
func Text(resp *commands.Response) string {
	parts := []string{plainText(resp)}
	for _, f := range resp.FollowUps {
		if !f.Continues {
			break
		}
		parts = append(parts, plainText(f))
	}
	return strings.Join(parts, "\n")
}

// plainText flattens one message as Text does.
func plainText(resp *commands.Response) string {
	return strings.NewReplacer(`\\`, `\`, `\`, ``, "\u200b", "").Replace(flatten(resp, true))
}

// FollowUp flattens the ephemeral follow-ups of resp as Text does, one
// after the other, after those that continue resp itself: what only the
// caller (a GM, for a hidden character's numbers) sees.
func FollowUp(resp *commands.Response) string {
	var parts []string
	own := true // still among the follow-ups that continue resp
	for _, f := range resp.FollowUps {
		if own = own && f.Continues; !own && f.Ephemeral {
			parts = append(parts, plainText(f))
		}
	}
	return strings.Join(parts, "\n")
}

// Messages returns every message resp sends: resp itself, then each of its
// follow-ups, in order.
func Messages(resp *commands.Response) []*commands.Response {
	return append([]*commands.Response{resp}, resp.FollowUps...)
}

// flatten writes resp's content, then each embed's title, description and
// fields ("name: value"), and its footer when footer is set, one per line.
func flatten(resp *commands.Response, footer bool) string {
	var b strings.Builder
	b.WriteString(resp.Content)
	for _, e := range resp.Embeds {
		b.WriteString("\n" + e.Title + "\n" + e.Description)
		for _, f := range e.Fields {
			b.WriteString("\n" + f.Name + ": " + f.Value)
		}
		if footer {
			b.WriteString("\n" + e.Footer)
		}
	}
	return b.String()
}

// splitLine splits on spaces, keeping "double quoted" values together.
func splitLine(s string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
		case r == ' ' && !quoted:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
