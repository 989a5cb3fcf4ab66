package manualdice

import (
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
)

// TestWithheldFrom: the answer to another user's request, shown to the
// player who entered its dice, keeps what everyone may read and leaves out
// what was for that user alone.
func TestWithheldFrom(t *testing.T) {
	secret := &commands.Response{Content: "Goblin HP 11 → 7", Ephemeral: true}
	public := &commands.Response{Content: "Lister takes 4", FollowUps: []*commands.Response{secret, {Content: "for all"}}}
	got := withheldFrom(public)
	if len(got.FollowUps) != 1 || got.FollowUps[0].Content != "for all" || !strings.Contains(got.Content, "Lister takes 4") || !strings.Contains(got.Content, "/history") {
		t.Errorf("withheldFrom(public reply with an ephemeral follow-up) = %+v; want the reply, the public follow-up and where to read the rest", got)
	}
	if got := withheldFrom(&commands.Response{Content: "Goblin HP 11 → 7", Ephemeral: true}); !got.Ephemeral || strings.Contains(got.Content, "11") || len(got.FollowUps) != 0 {
		t.Errorf("withheldFrom(ephemeral reply) = %+v; want an ephemeral note without the reply", got)
	}
	plain := &commands.Response{Content: "Lister takes 4"}
	if got := withheldFrom(plain); got.Content != "Lister takes 4" {
		t.Errorf("withheldFrom(public reply) = %+v; want it unchanged", got)
	}
}
