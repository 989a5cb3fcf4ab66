package commands_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// FuzzParseStats checks ParseStats on any text (no panic; errors are
// CodeInvalid; pairs are lower-case keys with non-empty values, each key
// once, one pair per field) and then applies the text with `/char set` to a
// character of each system: the reply is never the internal-error apology,
// and a refusal leaves the character exactly as it was.
func FuzzParseStats(f *testing.F) {
	for _, s := range []string{
		"class=fighter level=2", "hp=4 hit-die=d6", "HP=3", "hp-max=14 con=12 wis=14 feats=endurance,die-hard",
		"endure=2 react=1 willpower=3 vigor=4 lockpick=2:reason", "a=b=c", "=1", "x=", "hp=1 hp=2",
		"level=99999999999999999999", "hp=-1", "hit-die=d1000", "state=dead", "effect=fatigued",
		"  \t\n ", "hp=\u00a0", "class=<@&123> level=1", "save-death=21", "temp-con=30",
	} {
		f.Add(s)
	}
	db, err := storage.Open(filepath.Join(f.TempDir(), "stats.db"), storage.Options{Timeout: time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	svc := commands.New(db, dice.NewRandom(7), allSystems, commandstest.Features()...)
	ctx := context.Background()
	gmRequest := func(channel, command, sub string, opts map[string]string) *commands.Request {
		return &commands.Request{Kind: commands.KindCommand, ChannelID: channel, GuildID: "g1",
			UserID: "gm", UserName: "gm", Permissions: commands.ManageChannels,
			Command: command, Subcommand: sub, Options: opts}
	}
	initial := map[string]string{
		"hit-protection": "class=fighter hit-die=d8 hp=5",
		"hp-mp-wp":       "hp-max=12 mp-max=3",
		"harm":           "endure=2 vigor=3",
	}
	systems := []string{"hit-protection", "hp-mp-wp", "harm"}
	for _, sys := range systems {
		if r := svc.Handle(ctx, gmRequest(sys, "table", "setup", map[string]string{"system": sys})); r.Ephemeral {
			f.Fatalf("setup %s: %s", sys, r.Content)
		}
		if r := svc.Handle(ctx, gmRequest(sys, "char", "create", map[string]string{"name": "Lister", "stats": initial[sys]})); r.Ephemeral {
			f.Fatalf("create in %s: %s", sys, r.Content)
		}
	}
	sheet := func(channel string) string {
		var out string
		err := db.View(func(tx *storage.Tx) error {
			c, err := tx.CharacterByName(channel, "Lister")
			if err == nil {
				out = string(c.Sheet)
			}
			return err
		})
		if err != nil {
			f.Fatalf("read Lister: %v", err)
		}
		return out
	}

	f.Fuzz(func(t *testing.T, s string) {
		stats, err := commands.ParseStats(s)
		if err != nil {
			if commands.ErrorCode(err) != commands.CodeInvalid {
				t.Fatalf("ParseStats(%q) error %v has code %d; want CodeInvalid", s, err, commands.ErrorCode(err))
			}
		} else {
			if len(stats) != len(strings.Fields(s)) {
				t.Fatalf("ParseStats(%q) = %d pairs for %d fields", s, len(stats), len(strings.Fields(s)))
			}
			seen := map[string]bool{}
			for _, st := range stats {
				if st.Key == "" || st.Value == "" || st.Key != strings.ToLower(st.Key) || seen[st.Key] || strings.ContainsAny(st.Key+st.Value, " \t\n") {
					t.Fatalf("ParseStats(%q) gave pair %+v (seen before: %v)", s, st, seen[st.Key])
				}
				seen[st.Key] = true
			}
		}
		if strings.TrimSpace(s) == "" || len(s) > 500 {
			return
		}
		sys := systems[len(s)%3]
		before := sheet(sys)
		resp := svc.Handle(ctx, gmRequest(sys, "char", "set", map[string]string{"name": "Lister", "stats": s}))
		if resp.Content == commands.Apology {
			t.Fatalf("/char set stats:%q in %s: internal error", s, sys)
		}
		if resp.Ephemeral {
			if after := sheet(sys); after != before {
				t.Fatalf("/char set stats:%q in %s was refused (%s) but changed the sheet\nfrom %s\nto   %s", s, sys, resp.Content, before, after)
			}
		}
	})
}
