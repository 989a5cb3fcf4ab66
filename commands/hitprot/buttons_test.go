package hitprot_test

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// buttons returns the labels of resp's buttons, disabled ones as [-Label-].
func buttons(resp *commands.Response) string {
	var out []string
	for _, row := range resp.Components {
		for _, b := range row {
			if b.Disabled {
				out = append(out, "[-"+b.Label+"-]")
			} else {
				out = append(out, "["+b.Label+"]")
			}
		}
	}
	return strings.Join(out, " ")
}

// ids returns the custom_ids of resp's buttons by label.
func ids(resp *commands.Response) map[string]string {
	out := map[string]string{}
	for _, row := range resp.Components {
		for _, b := range row {
			out[b.Label] = b.CustomID
		}
	}
	return out
}

// TestLister plays RULES.md §1.3's Lister example through the
// commands: 0 HP, the choice buttons, Stay Up with 2d6 [1, 2] = 3 → Flesh
// Wound, then 7 damage with 1d6 = 2 → 9 → Critical Wound.
func TestLister(t *testing.T) {
	tb := newParty(t)
	resp := tb.Do("ann", "/damage target:Lister amount:4")
	out := tb.OK(resp)
	commandstest.WantIn(t, "damage", out, "**Lister** takes 4 damage: HP 4 → 0/6.", "**Lister** is at 0 HP: bob (its owner) or a GM chooses")
	if got := buttons(resp); got != "[Heroic Death] [Stay Up] [Go Down]" {
		t.Errorf("buttons = %q", got)
	}
	tb.Refused(tb.Do("ann", "/damage target:Lister amount:1"), "0-HP choice is pending: bob")
	tb.Refused(tb.Press("meg", resp, "Stay Up"), "only its owner or a GM")

	tb.Dice.Push(1, 2)
	up := tb.Press("bob", resp, "Stay Up")
	if !up.UpdateMessage || up.Ephemeral || buttons(up) != "[-Heroic Death-] [-Stay Up-] [-Go Down-]" {
		t.Errorf("Stay Up reply: update %v, buttons %q", up.UpdateMessage, buttons(up))
	}
	commandstest.WantIn(t, "Stay Up", commandstest.Text(up), "Stay Up", "2d6 [1, 2] = 3", "Flesh Wound", "untreated wound", "fights on at 0 HP")
	tb.Refused(tb.Press("bob", resp, "Go Down"), "already chosen")
	tb.Refused(tb.Press("ann", resp, "Stay Up"), "already chosen")

	// 1d6 = 2, save vs death 15 passes (12), limb 1d4 = 3, stun 1d6 = 4,
	// 2d6 = [2, 3] weeks.
	tb.Dice.Push(2, 15, 3, 4, 2, 3)
	out = tb.OK(tb.Do("ann", "/damage target:Lister amount:7"))
	commandstest.WantIn(t, "second hit", out, "**Lister** takes 7 damage: injury 1d6 [2] = 2 + 7 damage = 9", "Critical Wound", "save vs death 1d20 [15] = 15 vs 12: passed",
		"left leg", "stunned 4 rounds (1d6 [4] = 4", "5 weeks (2d6 [2, 3] = 5")
	commandstest.WantIn(t, "card", tb.OK(tb.Do("bob", "/char show name:Lister")), "staying up, 2 untreated wounds")
	tb.NoDiceLeft()
	// Every die is in the history: the Stay Up roll, then the hit's 1d6,
	// the save, the limb, the stun and the weeks.
	h := tb.OK(tb.Do("ann", "/history target:Lister"))
	commandstest.WantIn(t, "history", h, "chooses Stay Up: injury 2d6 [1, 2] = 3", "1d6 [2] = 2", "1d20 [15] = 15", "1d4 [3] = 3", "1d6 [4] = 4", "2d6 [2, 3] = 5")
}

// TestChoiceOdds: the 0-HP message prints the exact chance of each injury
// band for Stay Up (2d6) and Go Down (3d6 keeping the two lowest), equal to
// fractions computed here by counting.
func TestChoiceOdds(t *testing.T) {
	tb := newParty(t)
	resp := tb.Do("ann", "/damage target:Lister amount:9")
	if len(resp.Embeds) != 1 || len(resp.Embeds[0].Fields) != 2 {
		t.Fatalf("embeds = %+v", resp.Embeds)
	}
	bands := []string{"Unhurt", "Flesh Wound", "Nasty Wound", "Severe Wound", "Critical Wound", "Fatal Wound I", "Fatal Wound II"}
	band := func(total int) int {
		return []int{0, 0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 5, 6}[total]
	}
	var two, three [7]int64
	for a := 1; a <= 6; a++ {
		for b := 1; b <= 6; b++ {
			two[band(a+b)]++
			for c := 1; c <= 6; c++ {
				three[band(a+b+c-max(a, b, c))]++
			}
		}
	}
	if two != [7]int64{1, 5, 9, 6, 9, 5, 1} {
		t.Fatalf("2d6 counts %v", two)
	}
	pct := func(n, d int64) string { return new(big.Rat).SetFrac64(100*n, d).FloatString(1) + "%" }
	for i, f := range resp.Embeds[0].Fields {
		counts, den := two, int64(36)
		if i == 1 {
			counts, den = three, 216
		}
		for b, name := range bands {
			want := fmt.Sprintf("%s %s", name, pct(counts[b], den))
			if !strings.Contains(f.Value+" ·", want+" ·") {
				t.Errorf("%s = %q; want %q", f.Name, f.Value, want)
			}
		}
	}
	commandstest.WantIn(t, "odds", resp.Embeds[0].Fields[0].Value, "Unhurt 2.8%", "Nasty Wound 25.0%")
	commandstest.WantIn(t, "odds", resp.Embeds[0].Fields[1].Value, "Unhurt 7.4%")
}

// TestHeroicDeath: the button opens a modal; submitting it posts
// the heroic action and the character is dead.
func TestHeroicDeath(t *testing.T) {
	tb := newParty(t)
	resp := tb.Do("ann", "/damage target:Lister amount:4")
	m := tb.Press("bob", resp, "Heroic Death")
	if m.Modal == nil || m.Modal.Title != "Heroic Death" || len(m.Modal.Inputs) != 1 {
		t.Fatalf("Heroic Death press = %+v; want the modal", m)
	}
	submit := func(user, action string) *commands.Response {
		return tb.Svc.Handle(context.Background(), &commands.Request{
			Kind: commands.KindModal, ChannelID: tb.Channel, UserID: user, UserName: user,
			CustomID: m.Modal.CustomID, Values: map[string]string{m.Modal.Inputs[0].CustomID: action},
		})
	}
	tb.Refused(submit("meg", "steal the Macguffin"), "only its owner or a GM")
	r := submit("bob", "Pulls the pin on the *Curry Monster*'s grenade.")
	out := tb.OK(r)
	commandstest.WantIn(t, "heroic death", out, "Lister", "Heroic Death", "Pulls the pin on the *Curry Monster*'s grenade.", "grenade. **Lister** is dead.")
	if !strings.Contains(r.Content, `\*Curry Monster\*`) || buttons(r) != "[-Heroic Death-] [-Stay Up-] [-Go Down-]" {
		t.Errorf("modal reply %q buttons %q; want the action escaped and the buttons disabled", r.Content, buttons(r))
	}
	tb.Refused(submit("bob", "again"), "already chosen")
	tb.Refused(tb.Do("ann", "/damage target:Lister amount:1"), "is dead")
	tb.Refused(tb.Do("bob", "/rest kind:turn"), "dead")
	tb.Refused(tb.Do("bob", "/roll as:Lister expr:d20"), "is dead")
	commandstest.WantIn(t, "show", tb.OK(tb.Do("bob", "/char show name:Lister")), "dead (Heroic Death)", "Heroic action: Pulls the pin")
}

// TestGoDown: fate hidden, non-lethal damage recorded, attend rolls
// 3d6dh1, lethal damage kills the down.
func TestGoDown(t *testing.T) {
	tb := newParty(t)
	resp := tb.Do("ann", "/damage target:Lister amount:5")
	down := tb.Press("ann", resp, "Go Down")
	commandstest.WantIn(t, "go down", tb.OK(down), "Go Down", "fate hidden")
	out := tb.OK(tb.Do("ann", "/damage target:Lister amount:3 lethal:false"))
	commandstest.WantIn(t, "non-lethal", out, "**Lister** takes 3 damage: down: the non-lethal hit is recorded and has no other effect.")
	commandstest.WantIn(t, "history", tb.OK(tb.Do("ann", "/history target:Lister")), "lethal:false")
	tb.Refused(tb.Do("bob", "/rest kind:turn target:Lister"), "fate hidden")
	// Meg attends: 3d6dh1 [6, 1, 2] keeps 1 and 2 = 3 → Flesh Wound.
	tb.Dice.Push(6, 1, 2)
	out = tb.OK(tb.Do("meg", "/attend target:Lister"))
	commandstest.WantIn(t, "attend", out, "meg attends **Lister**", "3d6dh1 [~~6~~, 1, 2] = 3", "Flesh Wound")
	commandstest.WantIn(t, "card", tb.OK(tb.Do("bob", "/char show name:Lister")), "down (attended)")
	tb.Refused(tb.Do("meg", "/attend target:Lister"), "nothing to attend")
	out = tb.OK(tb.Do("ann", "/damage target:Lister amount:1"))
	commandstest.WantIn(t, "lethal", out, "attacked with lethal intent while down: dies at once")
	commandstest.WantIn(t, "card", tb.OK(tb.Do("bob", "/char show name:Lister")), "dead (killed while down)")
	tb.NoDiceLeft()
}

// TestChoiceAfterUndoneDamage: a press on the 0-HP buttons of damage that
// /undo undid says the message is out of date because of the undo, and
// changes nothing (nothing had been chosen).
func TestChoiceAfterUndoneDamage(t *testing.T) {
	tb := newParty(t)
	resp := tb.Do("ann", "/damage target:Lister amount:4")
	tb.OK(resp)
	commandstest.WantIn(t, "undo", tb.OK(tb.Do("ann", "/undo")), "Undid `#4`")
	tb.Refused(tb.Press("bob", resp, "Stay Up"), "This message is out of date: the damage it answers (#4) was undone, so **Lister** has no 0-HP choice to make here. Nothing was changed.")
	commandstest.WantIn(t, "show", tb.OK(tb.Do("bob", "/char show name:Lister")), "HP ███████░░░ 4/6")
}

// TestUndoneChoiceFromCharShow: /undo of a 0-HP choice brings the
// choice back with its old message disabled; /char show offers the owner
// (or a GM) the buttons again, with the odds, and they work; the old
// buttons are stale once the choice is made (RULES.md §1.3 item 3).
func TestUndoneChoiceFromCharShow(t *testing.T) {
	tb := newParty(t)
	resp := tb.Do("ann", "/damage target:Lister amount:4")
	tb.OK(resp)
	tb.Dice.Push(1, 2)
	tb.OK(tb.Press("bob", resp, "Stay Up"))
	tb.OK(tb.Do("bob", "/undo"))
	tb.Refused(tb.Do("ann", "/damage target:Lister amount:1"), "use `/char show name:Lister` to get the buttons again")

	show := tb.Do("bob", "/char show name:Lister")
	out := tb.OK(show)
	commandstest.WantIn(t, "show", out, "0-HP choice pending", "**Lister** is at 0 HP", "Stay Up: 2d6: Unhurt 2.8%", "3d6dh1): Unhurt 7.4%")
	if got := buttons(show); got != "[Heroic Death] [Stay Up] [Go Down]" {
		t.Fatalf("/char show buttons = %q; want the three enabled", got)
	}
	for label, id := range ids(show) {
		if id != ids(resp)[label] {
			t.Errorf("%s custom_id %q; want the pending choice's %q", label, id, ids(resp)[label])
		}
	}
	if got := buttons(tb.Do("meg", "/char show name:Lister")); got != "" {
		t.Errorf("meg's /char show offers %q; only the owner or a GM gets the buttons", got)
	}
	if got := buttons(tb.Do("ann", "/char show name:Lister")); got != "[Heroic Death] [Stay Up] [Go Down]" {
		t.Errorf("the GM's /char show offers %q", got)
	}
	if got := buttons(tb.Do("bob", "/char show name:Meghan")); got != "" {
		t.Errorf("no choice pending for Meghan, yet %q", got)
	}

	down := tb.Press("bob", show, "Go Down")
	commandstest.WantIn(t, "go down from /char show", tb.OK(down), "Go Down", "fate hidden")
	if !down.UpdateMessage || buttons(down) != "[-Heroic Death-] [-Stay Up-] [-Go Down-]" {
		t.Errorf("press from /char show: update %v buttons %q", down.UpdateMessage, buttons(down))
	}
	tb.Refused(tb.Press("bob", resp, "Stay Up"), "already chosen")
	tb.Refused(tb.Press("bob", show, "Heroic Death"), "already chosen")
	if got := buttons(tb.Do("bob", "/char show name:Lister")); got != "" {
		t.Errorf("/char show after the choice offers %q", got)
	}
	tb.NoDiceLeft()
}

// TestStayUpReplies: the Stay Up reply shows the injury with its dice in
// one line, and says "fights on at 0 HP" only when the injury neither kills nor
// incapacitates; a failed Critical Wound states the bleed-out instead.
// /attend shows the fate it reveals, and names the reading that the attend
// revealing the fate also stops a Critical Wound's bleeding.
func TestStayUpReplies(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("ann", `/char create name:Rook stats:"class=thief hp=2"`))
	resp := tb.Do("ann", "/damage target:Lister,Rook amount:4")
	// Lister: 2d6 [4, 4] = 8 Critical, death save 3 fails, 1d4 = 1 (left
	// arm), 2d4 [1, 1] = 2 rounds.
	tb.Dice.Push(4, 4, 3, 1, 1, 1)
	out := commandstest.Text(tb.PressRow("bob", resp, 0, "Stay Up"))
	commandstest.WantIn(t, "critical", out, "**Lister** chooses **Stay Up**: injury 2d6 [4, 4] = 8 → **Critical Wound**", "loses the left arm",
		"dies in 2 rounds (2d4 [1, 1] = 2) unless attended; once attended", "`/attend target:Lister` stops it; each later hit is damage + 1d6")
	if strings.Contains(out, "fights on") {
		t.Errorf("Stay Up reply after a failed Critical Wound: %q; must not say it fights on", out)
	}
	// Rook: Go Down; meg attends: 3d6dh1 [6, 4, 4] = 8 Critical, death save
	// 2 fails, 1d4 = 2 (right arm), 2d4 [1, 2]; the attend stops it: 2d6
	// [1, 1] weeks.
	tb.PressRow("ann", resp, 1, "Go Down")
	tb.Dice.Push(6, 4, 4, 2, 2, 1, 2, 1, 1)
	out = tb.OK(tb.Do("bob", "/attend target:Rook"))
	commandstest.WantIn(t, "attend", out, "bob attends **Rook** (a round): fate revealed", "loses the right arm",
		"this attend, which revealed the fate, also attends the wound: the Critical Wound's bleeding stops")
	// A stun (Nasty Wound, paralysis failed) is stated too.
	tb.OK(tb.Do("ann", `/char create name:Bram stats:"class=fighter hp=1"`))
	resp = tb.Do("ann", "/damage target:Bram amount:1")
	tb.Dice.Push(3, 3, 1, 1)
	out = commandstest.Text(tb.Press("ann", resp, "Stay Up"))
	commandstest.WantIn(t, "stun", out, "Nasty Wound", "stunned 1 round", "; each later hit")
	if strings.Contains(out, "until day 1") {
		t.Errorf("Stay Up reply with a stun: %q; want the stun in rounds alone", out)
	}
	if strings.Contains(out, "fights on") {
		t.Errorf("Stay Up reply with a stun: %q", out)
	}
	tb.NoDiceLeft()
}
