package commands_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// table is a test harness: a service over a real bbolt file with scripted
// dice, acting in one channel.
type table struct {
	t       *testing.T
	svc     *commands.Service
	db      *storage.DB
	dice    *dice.Scripted
	channel string
}

func newTable(t *testing.T) *table {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "hpkeeper.db"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src := dice.NewScripted()
	svc := commands.New(db, src)
	at := time.Date(2026, 11, 29, 19, 0, 0, 0, time.UTC)
	svc.SetClock(func() time.Time { at = at.Add(time.Minute); return at })
	return &table{t: t, svc: svc, db: db, dice: src, channel: "chan-1"}
}

// do runs a command line such as `/char create name:Lister stats:"hp=4"` as
// user (whose name is the user id); the first character of user '!' gives the
// Manage Channels permission.
func (tb *table) do(user, line string) *commands.Response {
	tb.t.Helper()
	req := tb.request(user, line)
	return tb.svc.Handle(context.Background(), req)
}

func (tb *table) request(user, line string) *commands.Request {
	tb.t.Helper()
	perms := int64(0)
	if strings.HasPrefix(user, "!") {
		user = user[1:]
		perms = commands.ManageChannels
	}
	words := splitLine(line)
	req := &commands.Request{
		Kind: commands.KindCommand, ChannelID: tb.channel, GuildID: "g1",
		UserID: user, UserName: user, Permissions: perms,
		Options: map[string]string{}, Users: map[string]string{},
	}
	req.Command = strings.TrimPrefix(words[0], "/")
	for _, w := range words[1:] {
		k, v, ok := strings.Cut(w, ":")
		if !ok {
			req.Subcommand = w
			continue
		}
		req.Options[k] = v
		req.Users[v] = v
	}
	return req
}

// press presses the button labelled label in resp as user.
func (tb *table) press(user string, resp *commands.Response, label string) *commands.Response {
	tb.t.Helper()
	for _, row := range resp.Components {
		for _, b := range row {
			if b.Label == label {
				return tb.svc.Handle(context.Background(), &commands.Request{
					Kind: commands.KindComponent, ChannelID: tb.channel, GuildID: "g1",
					UserID: user, UserName: user, CustomID: b.CustomID,
				})
			}
		}
	}
	tb.t.Fatalf("no button %q in %+v", label, resp)
	return nil
}

// ok fails unless resp is a public reply, and returns its text.
func (tb *table) ok(resp *commands.Response) string {
	tb.t.Helper()
	if resp.Ephemeral {
		tb.t.Fatalf("got ephemeral reply %q; want a public one", resp.Content)
	}
	return text(resp)
}

// refused fails unless resp is an ephemeral refusal containing want.
func (tb *table) refused(resp *commands.Response, want string) {
	tb.t.Helper()
	if !resp.Ephemeral || !strings.Contains(resp.Content, want) {
		tb.t.Fatalf("got %q (ephemeral %v); want an ephemeral reply containing %q", resp.Content, resp.Ephemeral, want)
	}
}

// text flattens a response's content and embeds, removing markdown escapes
// as the console does.
func text(resp *commands.Response) string {
	var b strings.Builder
	b.WriteString(resp.Content)
	for _, e := range resp.Embeds {
		b.WriteString("\n" + e.Title + "\n" + e.Description)
		for _, f := range e.Fields {
			b.WriteString("\n" + f.Name + ": " + f.Value)
		}
		b.WriteString("\n" + e.Footer)
	}
	return strings.NewReplacer(`\\`, `\`, `\`, ``, "\u200b", "").Replace(b.String())
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
