package commands_test

// The permission matrix of RULES.md §0.1 (SECURITY.md promise 6): every
// command and button, as each of five callers.

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// The five callers. "ann" owns Lister (and "bob" owns Kryten), "gm" set the
// table up, "carol" has Discord's Manage Channels permission in the channel,
// and "dan" writes from a DM (no guild, his own DM channel, no permissions).
const (
	owner   = "owner"
	other   = "other"
	gm      = "gm"
	manager = "manager"
	dmUser  = "dm"
)

var roles = []string{owner, other, gm, manager, dmUser}

// roleUser is the harness user of each role ('!' gives Manage Channels).
var roleUser = map[string]string{owner: "ann", other: "bob", gm: "gm", manager: "!carol", dmUser: "dan"}

// forbiddenRe matches the refusals of a caller who may not act (CodeForbidden).
var forbiddenRe = regexp.MustCompile(`(?i)only (a GM|its owner or a GM)|is yours: another character's player or a GM|nothing here that you can undo`)

// permCase is one row of the matrix: after setup (lines "user /command…",
// run in the table's channel) the caller of each role runs action; the
// roles in allowed succeed and every other role is refused without any
// change. An action "press Label" presses that button of the last setup
// reply; "submit text" opens the Heroic Death modal from the last setup
// reply as the GM and submits text.
type permCase struct {
	name    string
	system  string
	setup   []string
	action  string
	allowed []string
	// dmAllowed: the DM user succeeds (acting in his DM, with no table there).
	dmAllowed bool
	// private: the successful reply is ephemeral (help).
	private bool
}

var (
	guildAll   = []string{owner, other, gm, manager}
	ownerOrGM  = []string{owner, gm, manager}
	gmOnly     = []string{gm, manager}
	othersOrGM = []string{other, gm, manager}
)

var charStats = map[string]string{
	"hit-protection": "hit-die=d6 hp=4 level=2",
	"hp-mp-wp":       "hp-max=12 mp-max=4 feats=die-hard",
	"harm":           "endure=2 vigor=3 first-aid=2",
}

func permCases() []permCase {
	hp, hmw, harm := "hit-protection", "hp-mp-wp", "harm"
	zeroHP := []string{"gm /damage target:Lister amount:4"}
	return []permCase{
		// /table
		{name: "table setup (change system)", system: hp, setup: []string{"-nochar"}, action: "/table setup system:harm", allowed: gmOnly, dmAllowed: true},
		{name: "table show", system: hp, action: "/table show", allowed: guildAll},
		{name: "table gm add", system: hp, action: "/table gm action:add user:bob", allowed: gmOnly},
		{name: "table gm remove", system: hp, setup: []string{"gm /table gm action:add user:zed"}, action: "/table gm action:remove user:zed", allowed: gmOnly},
		{name: "table option", system: hp, action: "/table option name:catch-breath value:on", allowed: gmOnly},
		// /char
		{name: "char create (own)", system: hp, action: "/char create name:Holly stats:\"hit-die=d6 hp=3\"", allowed: guildAll},
		{name: "char create for another user", system: hp, action: "/char create name:Holly owner:zed stats:\"hit-die=d6 hp=3\"", allowed: gmOnly},
		{name: "char set", system: hp, action: "/char set name:Lister stats:level=3", allowed: ownerOrGM},
		{name: "char show", system: hp, action: "/char show name:Lister", allowed: guildAll},
		{name: "char list", system: hp, action: "/char list", allowed: guildAll},
		{name: "char delete (asks)", system: hp, action: "/char delete name:Lister", allowed: ownerOrGM},
		{name: "Delete button", system: hp, setup: []string{"ann /char delete name:Lister"}, action: "press Delete", allowed: ownerOrGM},
		{name: "Cancel button", system: hp, setup: []string{"ann /char delete name:Lister"}, action: "press Cancel", allowed: ownerOrGM},
		// rules commands, hit-protection
		{name: "damage", system: hp, action: "/damage target:Lister amount:1", allowed: ownerOrGM},
		{name: "damage with soak", system: hp, action: "/damage target:Lister amount:1 soak:true", allowed: ownerOrGM},
		{name: "roll", system: hp, action: "/roll expr:2d6", allowed: guildAll, dmAllowed: true},
		{name: "roll as", system: hp, action: "/roll as:Lister expr:1d6", allowed: ownerOrGM},
		{name: "roll as with hit dice", system: hp, action: "/roll as:Lister expr:1d6 hd:1", allowed: ownerOrGM},
		{name: "save", system: hp, action: "/save target:Lister type:death", allowed: ownerOrGM},
		{name: "rest turn", system: hp, setup: []string{"gm /damage target:Lister amount:1"}, action: "/rest kind:turn target:Lister", allowed: ownerOrGM},
		{name: "rest night (whole table)", system: hp, action: "/rest kind:night", allowed: gmOnly},
		{name: "spend hit die", system: hp, action: "/spend target:Lister resource:hd amount:1", allowed: ownerOrGM},
		{name: "Stay Up button", system: hp, setup: zeroHP, action: "press Stay Up", allowed: ownerOrGM},
		{name: "Go Down button", system: hp, setup: zeroHP, action: "press Go Down", allowed: ownerOrGM},
		{name: "Heroic Death button", system: hp, setup: zeroHP, action: "press Heroic Death", allowed: ownerOrGM},
		{name: "Heroic Death modal", system: hp, setup: zeroHP, action: "submit I hold the door", allowed: ownerOrGM},
		{name: "attend (down)", system: hp, setup: append(append([]string{}, zeroHP...), "ann press Go Down"), action: "/attend target:Lister", allowed: othersOrGM},
		{name: "treat", system: hp, setup: append(append([]string{}, zeroHP...), "ann press Stay Up"), action: "/treat target:Lister", allowed: guildAll},
		{name: "clock show", system: hp, action: "/clock action:show", allowed: guildAll},
		{name: "clock next-round", system: hp, action: "/clock action:next-round", allowed: gmOnly},
		{name: "clock advance", system: hp, action: "/clock action:advance amount:1 unit:hours", allowed: gmOnly},
		{name: "history", system: hp, action: "/history", allowed: guildAll},
		{name: "history of a character", system: hp, action: "/history target:Lister", allowed: guildAll},
		// Without Kryten bob has no event of his own: his /undo must not
		// revert ann's damage.
		{name: "undo (the owner's damage)", system: hp, setup: []string{"-nokryten", "ann /damage target:Lister amount:1"}, action: "/undo", allowed: ownerOrGM},
		{name: "help", system: hp, action: "/help", allowed: guildAll, dmAllowed: true, private: true},
		// hp-mp-wp
		{name: "hp-mp-wp damage", system: hmw, action: "/damage target:Lister amount:3", allowed: ownerOrGM},
		{name: "hp-mp-wp heal", system: hmw, setup: []string{"gm /damage target:Lister amount:3"}, action: "/heal target:Lister amount:1", allowed: ownerOrGM},
		{name: "hp-mp-wp spend mp", system: hmw, action: "/spend target:Lister resource:mp amount:1", allowed: ownerOrGM},
		{name: "hp-mp-wp activity", system: hmw, action: "/activity target:Lister kind:sleep", allowed: ownerOrGM},
		{name: "hp-mp-wp save", system: hmw, action: "/save target:Lister type:fort", allowed: ownerOrGM},
		{name: "hp-mp-wp wake", system: hmw, setup: []string{"gm /activity target:Lister kind:sleep"}, action: "/wake target:Lister listen-dc:10 stay-asleep:false", allowed: ownerOrGM},
		{name: "hp-mp-wp strain", system: hmw, setup: []string{"gm /damage target:Lister amount:24", "ann press Act Disabled"}, action: "/strain target:Lister", allowed: ownerOrGM},
		{name: "Act Disabled button", system: hmw, setup: []string{"gm /damage target:Lister amount:24"}, action: "press Act Disabled", allowed: ownerOrGM},
		{name: "Fall Unconscious button", system: hmw, setup: []string{"gm /damage target:Lister amount:24"}, action: "press Fall Unconscious", allowed: ownerOrGM},
		{name: "hp-mp-wp attend (dying)", system: hmw, setup: []string{`gm /char set name:Lister stats:"wp=-3 state=dying"`}, action: "/attend target:Lister", allowed: guildAll},
		{name: "hp-mp-wp rest night", system: hmw, action: "/rest kind:night", allowed: gmOnly},
		// harm
		{name: "harm damage", system: harm, action: "/damage target:Lister amount:1 kind:physical", allowed: ownerOrGM},
		// First aid is the healer's action: Kryten's owner (bob) or a GM
		// gives it, whoever owns the patient.
		{name: "harm heal first aid", system: harm, setup: []string{"gm /damage target:Lister amount:1 kind:physical"}, action: "/heal target:Lister trigger:first-aid healer:Kryten", allowed: othersOrGM},
		{name: "harm heal first aid by the patient's owner", system: harm, setup: []string{"gm /damage target:Kryten amount:1 kind:physical"}, action: "/heal target:Kryten trigger:first-aid healer:Lister", allowed: ownerOrGM},
		{name: "harm spend", system: harm, action: "/spend target:Lister resource:vigor amount:1", allowed: ownerOrGM},
		{name: "harm check", system: harm, action: "/roll as:Lister ability:endure", allowed: ownerOrGM},
	}
}

// TestPermissionMatrix runs every row of permCases as each role.
func TestPermissionMatrix(t *testing.T) {
	for _, pc := range permCases() {
		for _, role := range roles {
			pc, role := pc, role
			t.Run(pc.name+"/"+role, func(t *testing.T) {
				t.Parallel()
				allowed := role == dmUser && pc.dmAllowed
				for _, a := range pc.allowed {
					allowed = allowed || a == role
				}
				runPermCase(t, pc, role, allowed)
			})
		}
	}
}

func runPermCase(t *testing.T, pc permCase, role string, allowed bool) {
	tb := newTable(t)
	face := 2
	if pc.system == "harm" {
		face = 1 // valid for Fudge dice too
	}
	push := func() { tb.Dice.Push(repeat(face, 60)...) }
	push()
	tb.OK(tb.Do("gm", "/table setup system:"+pc.system))
	var last *commands.Response
	flags := map[string]bool{}
	for _, line := range pc.setup {
		flags[line] = strings.HasPrefix(line, "-")
	}
	if !flags["-nochar"] {
		tb.OK(tb.Do("ann", `/char create name:Lister stats:"`+charStats[pc.system]+`"`))
		if !flags["-nokryten"] {
			tb.OK(tb.Do("bob", `/char create name:Kryten stats:"`+charStats[pc.system]+`"`))
		}
	}
	for _, line := range pc.setup {
		if flags[line] {
			continue
		}
		push()
		user, cmd, _ := strings.Cut(line, " ")
		var resp *commands.Response
		if label, ok := strings.CutPrefix(cmd, "press "); ok {
			resp = tb.Press(user, last, label)
		} else {
			resp = tb.Do(user, cmd)
		}
		if resp.Content == commands.Apology || (resp.Ephemeral && !strings.HasPrefix(cmd, "/char delete")) {
			t.Fatalf("setup %q: %q", line, resp.Content)
		}
		if len(resp.Components) > 0 {
			last = resp
		}
	}
	push()
	before := tb.State()
	user := roleUser[role]
	var resp *commands.Response
	switch {
	case strings.HasPrefix(pc.action, "press "):
		resp = tb.pressAs(role, user, last, strings.TrimPrefix(pc.action, "press "))
	case strings.HasPrefix(pc.action, "submit "):
		modal := tb.Press("gm", last, "Heroic Death")
		if modal.Modal == nil {
			t.Fatalf("Heroic Death as the GM gave %+v; want a modal", modal)
		}
		req := tb.roleRequest(role, user, "")
		req.Kind, req.CustomID = commands.KindModal, modal.Modal.CustomID
		req.Values = map[string]string{modal.Modal.Inputs[0].CustomID: strings.TrimPrefix(pc.action, "submit ")}
		resp = tb.Svc.Handle(context.Background(), req)
	default:
		resp = tb.Svc.Handle(context.Background(), tb.roleRequest(role, user, pc.action))
	}
	got := commandstest.Text(resp)
	if resp.Modal != nil {
		got = "modal " + resp.Modal.Title
	}
	if resp.Content == commands.Apology {
		t.Fatalf("%s as %s: internal error", pc.action, role)
	}
	if allowed {
		if pc.private && (forbiddenRe.MatchString(got) || !strings.Contains(got, "hpkeeper")) {
			t.Errorf("%s as %s (%s) was refused: %q; RULES.md §0.1 allows it", pc.action, role, user, got)
		}
		if resp.Ephemeral && resp.Modal == nil && !pc.private {
			t.Errorf("%s as %s (%s) was refused: %q; RULES.md §0.1 allows it", pc.action, role, user, got)
		}
		return
	}
	if !resp.Ephemeral {
		t.Errorf("%s as %s (%s) succeeded: %q; RULES.md §0.1 forbids it", pc.action, role, user, got)
	}
	if role != dmUser && !forbiddenRe.MatchString(resp.Content) {
		t.Errorf("%s as %s (%s) refused with %q; want a refusal saying who may do it", pc.action, role, user, resp.Content)
	}
	if role == dmUser && !strings.Contains(resp.Content, "no table") && !strings.Contains(resp.Content, "gone") && !strings.Contains(resp.Content, "not one of ours") {
		t.Errorf("%s from a DM refused with %q; want no table there", pc.action, resp.Content)
	}
	if after := tb.State(); after != before {
		t.Errorf("%s as %s was refused but changed the table:\n%s\nbecame\n%s", pc.action, role, before, after)
	}
}

// roleRequest is the harness request of line as the role's user: in the
// table's channel, or for the DM user in his DM channel without a guild.
func (tb *table) roleRequest(role, user, line string) *commands.Request {
	tb.T.Helper()
	if line == "" {
		line = "/help"
	}
	req := tb.Request(user, line)
	if role == dmUser {
		req.GuildID, req.ChannelID, req.Permissions = "", "dm-"+user, 0
	}
	return req
}

// pressAs presses the labelled button of resp as the role's user.
func (tb *table) pressAs(role, user string, resp *commands.Response, label string) *commands.Response {
	tb.T.Helper()
	if resp == nil {
		tb.T.Fatalf("no message with buttons to press %q on", label)
	}
	for _, row := range resp.Components {
		for _, b := range row {
			if b.Label == label {
				req := tb.roleRequest(role, user, "")
				req.Kind, req.Command, req.CustomID = commands.KindComponent, "", b.CustomID
				req.Options = map[string]string{}
				return tb.Svc.Handle(context.Background(), req)
			}
		}
	}
	tb.T.Fatalf("no button %q in %+v", label, resp)
	return nil
}
