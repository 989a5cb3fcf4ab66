package commandstest

import (
	"context"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Sheets is a test table of one system set up by its GM, Ann (user "u1"),
// who sends every request in channel "c1" with the options given as a map:
// the harness of the character sheet tests. Its service keeps the real
// clock.
type Sheets struct {
	// T is the test the table fails.
	T testing.TB
	// Svc is the service under test.
	Svc *commands.Service
	// Dice hands out the faces a test pushes; running out is an error.
	Dice *dice.Scripted
}

// NewSheets returns a Sheets table whose service plays systems and the
// features (Features), with a table of system set up.
func NewSheets(t testing.TB, system string, systems ...commands.System) *Sheets {
	t.Helper()
	src := dice.NewScripted()
	st := &Sheets{T: t, Svc: commands.New(OpenDB(t), src, systems, Features()...), Dice: src}
	st.OK("table", "setup", map[string]string{"system": system})
	return st
}

// Handle runs a command as the table's GM, Ann.
func (st *Sheets) Handle(cmd, sub string, opts map[string]string) *commands.Response {
	st.T.Helper()
	return st.Svc.Handle(context.Background(), &commands.Request{
		Kind: commands.KindCommand, ChannelID: "c1", UserID: "u1", UserName: "Ann",
		Command: cmd, Subcommand: sub, Options: opts,
	})
}

// OK fails unless the reply is public, and returns its SheetText.
func (st *Sheets) OK(cmd, sub string, opts map[string]string) string {
	st.T.Helper()
	resp := st.Handle(cmd, sub, opts)
	if resp.Ephemeral {
		st.T.Fatalf("/%s %s %v: ephemeral %q; want a public reply", cmd, sub, opts, resp.Content)
	}
	return SheetText(resp)
}

// Refused fails unless the reply is an ephemeral error containing every want.
func (st *Sheets) Refused(cmd, sub string, opts map[string]string, want ...string) {
	st.T.Helper()
	resp := st.Handle(cmd, sub, opts)
	if !resp.Ephemeral {
		st.T.Fatalf("/%s %s %v = public %q; want an ephemeral refusal", cmd, sub, opts, resp.Content)
	}
	for _, w := range want {
		if !strings.Contains(resp.Content, w) {
			st.T.Errorf("/%s %s %v = %q; want it to contain %q", cmd, sub, opts, resp.Content, w)
		}
	}
}

// Create creates the character name with stats and returns the reply's text.
func (st *Sheets) Create(name, stats string) string {
	st.T.Helper()
	return st.OK("char", "create", map[string]string{"name": name, "stats": stats})
}

// Set sets stats on the character name and returns the reply's text.
func (st *Sheets) Set(name, stats string) string {
	st.T.Helper()
	return st.OK("char", "set", map[string]string{"name": name, "stats": stats})
}

// Show returns the text of /char show for the character name.
func (st *Sheets) Show(name string) string {
	st.T.Helper()
	return st.OK("char", "show", map[string]string{"name": name})
}

// SheetText flattens a reply's content and embeds (title, description,
// fields as "name: value"; no footer), without markdown escapes.
func SheetText(resp *commands.Response) string {
	return strings.ReplaceAll(flatten(resp, false), `\`, "")
}
