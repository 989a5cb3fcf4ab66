package commands_test

// The privacy property (BRIEF "Hidden information stays hidden, in every
// byte"; RULES.md §0.1 hidden=true): at a table of each system with a
// visible character (Lister, ann's) and a hidden NPC (Goblin, the GM's)
// whose numbers appear nowhere else, every command of the registry, run by
// the player and by the GM, with every button of its replies pressed, shows
// a non-GM nothing of the Goblin's numbers, dice or state: not in public
// replies, non-ephemeral follow-ups, the player's own ephemeral replies and
// refusals, button messages, the tracker or autocomplete; and not in any
// other byte their client receives: a custom_id holds only ids, event
// numbers, words and the nonces of physical dice; a hidden NPC's embed is
// its word in that word's colour; a file's name holds no secret; a line
// about a hidden NPC uses none of the terms of its state; and its word
// reads only where the command named it or its word changed (so a line's
// presence tells nothing either). The GM gets the numbers, privately.
// TestTwinsLookTheSame (twins_test.go) checks what no pattern can: that two
// hidden states players must not tell apart look the same, byte for byte.

import (
	"context"
	"flag"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/gmscreen"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

var privacySeed = flag.Uint64("privacy.seed", 0, "seed of TestHiddenNumbersNeverShow's dice (0: from the clock)")

// privacyTable is one system's table for the property: the stats of the
// PC and of the hidden NPC, a numeric stat to set on the NPC, and the
// patterns that match only the NPC's numbers and dice.
type privacyTable struct {
	system     string
	pc, hidden string
	set        string
	secrets    []*regexp.Regexp
}

var privacyTables = []privacyTable{
	{
		system: "hit-protection",
		pc:     "class=fighter hit-die=d6 hp=6",
		// d12 and level 19 are the Goblin's alone; every save target is 3;
		// its initiative is 1d6 + 17, 18 to 23.
		hidden: "class=cleric level=19 hit-die=d12 hp=11 hd=17 save-death=3 save-wands=3 save-paralysis=3 save-breath=3 save-spells=3 init=17",
		set:    "hp=10",
		secrets: res(`d12\b`, `/12\b`, `/19\b`, `\bHD 1[0-9]\b`, `→ 1[0-9]\b`, `cleric 19`, `vs 3:`, `[+] ?17\b`, `initiative \**(1[89]|2[0-3])\b`, `Goblin\** (1[89]|2[0-3])\b`,
			`\bto 1[2-9]\b`), // a refusal's range (a whole number from 0 to 12)
	},
	{
		system: "hp-mp-wp",
		pc:     "hp-max=20 con=12",
		// HP in the 900s, MP in the 800s, WP max 43, Fort +29, Will +31;
		// initiative d20 + 20, 21 to 40.
		hidden:  "class=sorcerer level=31 hp-max=937 mp-max=863 con=43 fort=29 will=31 init=20",
		set:     "hp=931",
		secrets: res(`\b9\d\d\b`, `\b8\d\d\b`, `/4[0-3]\b`, `[+]29\b`, `[+]31\b`, `sorcerer 31`, `[+] ?20\b`, `initiative \**(2[1-9]|3\d|40)\b`, `Goblin\** (2[1-9]|3\d|40)\b`),
	},
	{
		system: "harm",
		pc:     "endure=2 react=1 vigor=5",
		// Every rank 6, pools 19, 18 and 17.
		hidden: "endure=6 react=6 willpower=6 first-aid=6 counsel=6 vigor=19 instinct=18 reason=17",
		set:    "vigor=16/19",
		secrets: res(`/1[6-9]\b`, `\b(Vigor|Instinct|Reason) 1[0-9]\b`, `dF(k[hl]\d)?\+6\b`, `\b(Endure|React|Willpower|First Aid|Counsel) 6\b`,
			`\bto 1[6-9]\b`),
	},
}

func res(exprs ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		out[i] = regexp.MustCompile(e)
	}
	return out
}

// privacyScenarios are the lines each command path of the registry runs,
// as the player and as the GM, in this order. {hidden} is the NPC's
// stats, {set} a numeric stat of it, {system} the table's system, {u} the
// caller. TestHiddenNumbersNeverShow fails when a path of the registry has
// no scenario, so a new command must say how it is tried.
var privacyScenarios = []struct {
	path  string
	lines []string
}{
	{"table show", []string{"/table show"}},
	{"table tracker", []string{"/table tracker"}},
	{"char create", []string{`/char create name:Imp{u} stats:"{hidden} hidden=true"`, `/char create name:Pip{u} stats:"{pc}"`}},
	{"char set", []string{`/char set name:Goblin stats:"{set}"`, `/char set name:Lister stats:"{pc}"`}},
	{"char show", []string{"/char show name:Goblin", "/char show name:Lister", "/char show"}},
	{"char list", []string{"/char list"}},
	{"damage", []string{"/damage target:Goblin amount:3", "/damage target:Goblin,Lister amount:1d4", "/damage target:Lister,Goblin amount:2 soak:true",
		"/damage target:Goblin amount:4 crit:3", "/damage target:Goblin amount:2 kind:social pool:instinct", "/damage target:Goblin amount:1 lethal:false"}},
	{"roll", []string{"/roll as:Goblin expr:1d20", "/roll as:Goblin hd:1 expr:1d20 purpose:save", "/roll as:Goblin ability:endure", "/roll as:Goblin ability:react pool:instinct", "/roll expr:2d6"}},
	{"save", []string{"/save target:Goblin type:death", "/save target:Goblin,Lister type:fort", "/save target:Goblin type:will bonus:2", "/save target:Goblin type:spells hd:1"}},
	{"attend", []string{"/attend target:Goblin", "/attend target:Goblin healer:Lister bonus:3", "/attend target:Goblin skilled:true", "/attend target:Goblin healer:true"}},
	{"treat", []string{"/treat target:Goblin"}},
	{"strain", []string{"/strain target:Goblin"}},
	{"heal", []string{"/heal target:Goblin amount:2", "/heal target:Goblin,Lister amount:1d4 pool:wp", "/heal target:Goblin trigger:pools",
		"/heal target:Goblin trigger:first-aid healer:Lister", "/heal target:Lister trigger:counsel healer:Goblin", "/heal target:Goblin trigger:rest ability:endure"}},
	{"spend", []string{"/spend target:Goblin resource:hd amount:1", "/spend target:Goblin resource:mp amount:3", "/spend target:Goblin resource:vigor amount:1"}},
	{"activity", []string{"/activity target:Goblin kind:work", "/activity target:Goblin,Lister kind:awake"}},
	{"wake", []string{"/activity target:Goblin,Lister kind:sleep", "/wake target:Goblin listen-dc:15", "/wake target:Goblin,Lister listen-dc:5 stay-asleep:false", "/wake target:Goblin listen-dc:10"}},
	{"rest", []string{"/rest kind:turn target:Goblin", "/rest kind:breath target:Goblin", "/rest kind:night", "/rest kind:night target:Goblin", "/rest kind:day", "/rest kind:day target:Goblin"}},
	{"clock", []string{"/clock action:show", "/clock action:next-round", "/clock action:advance amount:3 unit:hours", "/clock action:advance amount:1 unit:days"}},
	{"init start", []string{"/init start"}},
	{"init join", []string{"/init join target:Goblin", "/init join target:Lister", "/init join target:Imp{u} roll:4"}},
	{"init show", []string{"/init show"}},
	{"init next", []string{"/init next", "/init next", "/table option name:init-reroll value:each-round", "/table option name:init-ping value:on",
		"/init next", "/init next", "/init next", "/clock action:next-round", "/table option name:init-reroll value:never"}},
	{"init remove", []string{"/init remove target:Goblin", "/init join target:Goblin", "/init remove target:Lister", "/init join target:Lister"}},
	{"init end", []string{"/init end", "/init start", "/init join target:Goblin,Lister", "/clock action:advance amount:1 unit:turns"}},
	{"table option", []string{"/table option name:catch-breath value:on", "/table option name:fudge-dice value:4", "/table option name:dice value:manual",
		"/damage target:Goblin amount:1d6", "/rest kind:night", "/table option name:dice value:bot",
		"/table option name:sheet-edit value:gm", `/char set name:Goblin stats:"{set}"`, "/table option name:sheet-edit value:owner",
		"/table option name:gm-channel value:#gm-room", "/damage target:Goblin amount:1", "/init next", "/table option name:gm-channel value:off"}},
	{"history", []string{"/history", "/history target:Goblin", "/history page:2", "/history user:gm before:#9"}},
	{"undo", []string{"/undo"}},
	{"odds", []string{"/odds", "/odds expr:2d6"}},
	{"help", []string{"/help", "/help topic:damage", "/help topic:{system}"}},
	{"table gm", []string{"/table gm action:add user:bob", "/table gm action:remove user:bob"}},
	{"table export", []string{"/table export"}},
	{"table import", []string{"/table import file:table.json"}},
	{"table setup", []string{"/table setup system:{system}"}},
	{"char delete", []string{"/char delete name:Goblin", "/char delete name:Imp{u}"}},
}

// registryPaths lists every command path of the registry: "damage",
// "table setup", …
func registryPaths(g *commands.Registry) []string {
	var out []string
	for _, c := range g.Commands() {
		if len(c.Subcommands) == 0 {
			out = append(out, c.Name)
		}
		for _, s := range c.Subcommands {
			out = append(out, c.Name+" "+s.Name)
		}
	}
	return out
}

// TestHiddenNumbersNeverShow is the property; -privacy.seed replays a run.
func TestHiddenNumbersNeverShow(t *testing.T) {
	seed := *privacySeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("dice seed %d (-privacy.seed=%d replays it)", seed, seed)

	covered := map[string]bool{}
	for _, s := range privacyScenarios {
		covered[s.path] = true
	}
	var missing []string
	for _, p := range registryPaths(newTable(t).Svc.Registry()) {
		if !covered[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("no privacy scenario for %q: add one to privacyScenarios", missing)
	}

	for _, pt := range privacyTables {
		t.Run(pt.system, func(t *testing.T) { runPrivacy(t, pt, seed) })
	}
}

// privacyRun is one system's run: the table, what the checks found.
type privacyRun struct {
	t  *testing.T
	pt privacyTable
	tb *commandstest.Table
	// told counts the GM's private messages that carried the NPC's numbers.
	told int
	// words are the hidden NPCs' words as the tracker last read them.
	words map[string]string
}

func runPrivacy(t *testing.T, pt privacyTable, seed uint64) {
	db := commandstest.OpenDB(t)
	svc := commands.New(db, dice.NewRandom(seed), allSystems, commandstest.Features()...)
	tracker.Of(svc.Registry()).SetPoster(&fakePoster{}, "")
	gmscreen.Of(svc.Registry()).SetPoster(gmChannel{}, "") // the GMs' alone: not checked
	run := &privacyRun{t: t, pt: pt, tb: &commandstest.Table{T: t, Svc: svc, DB: db, Channel: "chan-1"}, words: map[string]string{}}
	run.do("!gm", "/table setup system:"+pt.system)
	run.do("ann", `/char create name:Lister stats:"`+pt.pc+`"`)
	run.do("!gm", `/char create name:Goblin stats:"`+pt.hidden+` hidden=true"`)
	run.do("!gm", "/table tracker")
	if run.told == 0 {
		t.Fatalf("the GM was not told the hidden Goblin's numbers on creating it")
	}
	for round := 0; round < 2; round++ {
		for _, s := range privacyScenarios {
			for _, line := range s.lines {
				for _, user := range []string{"ann", "!gm"} {
					run.do(user, line)
				}
			}
		}
	}
	run.autocomplete()
	if run.told < 10 {
		t.Errorf("the GM was told the Goblin's numbers in only %d private messages; the run should reveal them often", run.told)
	}
}

// do runs line as user, checks every text the player can see, and presses
// every enabled button of the replies.
func (r *privacyRun) do(user, line string) {
	r.t.Helper()
	name := strings.TrimPrefix(user, "!")
	line = strings.NewReplacer("{hidden}", r.pt.hidden, "{pc}", r.pt.pc, "{set}", r.pt.set, "{system}", r.pt.system, "{u}", name).Replace(line)
	resp := r.tb.Do(user, line)
	r.check(user, line, resp)
	for _, msg := range append([]*commands.Response{resp}, resp.FollowUps...) {
		if user == "ann" && msg != resp && msg.Ephemeral {
			continue // the player's own follow-ups were checked with resp
		}
		for _, row := range msg.Components {
			for _, b := range row {
				if b.Disabled || b.Label == "Delete" {
					continue // deleting the Goblin would end the run
				}
				r.press(user, line, b)
			}
		}
	}
}

// press presses b as user (and answers a modal it opens).
func (r *privacyRun) press(user, line string, b commands.Button) {
	r.t.Helper()
	req := &commands.Request{Kind: commands.KindComponent, ChannelID: r.tb.Channel, GuildID: "g1",
		UserID: strings.TrimPrefix(user, "!"), UserName: strings.TrimPrefix(user, "!"), CustomID: b.CustomID}
	if strings.HasPrefix(user, "!") {
		req.Permissions = commands.ManageChannels
	}
	what := line + " → [" + b.Label + "]"
	resp := r.tb.Svc.Handle(context.Background(), req)
	r.check(user, what, resp)
	if resp.Modal == nil {
		return
	}
	answer := "a last stand"
	if in := resp.Modal.Inputs[0]; strings.HasPrefix(in.Label, "Faces of ") {
		answer = onesFor(in.Label)
	}
	sub := *req
	sub.Kind, sub.CustomID = commands.KindModal, resp.Modal.CustomID
	sub.Values = map[string]string{resp.Modal.Inputs[0].CustomID: answer}
	r.check(user, what+" → submit", r.tb.Svc.Handle(context.Background(), &sub))
}

// onesFor answers a physical dice modal ("Faces of 2d6 and 1d20, …") with
// a 1 for every die.
func onesFor(label string) string {
	var faces []string
	for _, m := range regexp.MustCompile(`(\d+)d`).FindAllStringSubmatch(label, -1) {
		n, _ := strconv.Atoi(m[1])
		for range n {
			faces = append(faces, "1")
		}
	}
	return strings.Join(faces, " ")
}

// check fails the test when a text a non-GM can see of resp (answering user)
// shows a secret; it counts the GM's private messages that do.
func (r *privacyRun) check(user, what string, resp *commands.Response) {
	r.t.Helper()
	gm := strings.HasPrefix(user, "!")
	var seen, private []string
	for i, msg := range append([]*commands.Response{resp}, resp.FollowUps...) {
		text := messageText(msg)
		switch {
		case gm && (msg.Ephemeral || msg.Modal != nil): // a modal shows to who pressed
			private = append(private, text)
		case gm && i > 0 || !gm || !msg.Ephemeral:
			seen = append(seen, text)
		}
	}
	var seenMsgs []*commands.Response
	for i, msg := range append([]*commands.Response{resp}, resp.FollowUps...) {
		if !gm || i > 0 && !msg.Ephemeral || i == 0 && !msg.Ephemeral && msg.Modal == nil {
			seenMsgs = append(seenMsgs, msg)
		}
	}
	r.checkBytes(user, what, seenMsgs)
	if _, tr, err := tracker.Of(r.tb.Svc.Registry()).Tracker(r.tb.Channel); err == nil && tr != nil {
		seen = append(seen, messageText(tr))
		r.checkBytes(user, what+" (the tracker)", []*commands.Response{tr})
		for _, m := range trackerWord.FindAllStringSubmatch(commandstest.Text(tr), -1) {
			r.words[m[1]] = m[2]
		}
	}
	for _, text := range seen {
		if s := r.secret(text); s != "" {
			r.t.Errorf("%s: %s: a non-GM can read the hidden Goblin's %q in:\n%s", user, what, s, text)
		}
	}
	for _, text := range private {
		if r.secret(text) != "" {
			r.told++
		}
	}
}

// hiddenName matches the names of the run's hidden NPCs.
var hiddenName = regexp.MustCompile(`\b(Goblin|Imp(ann|gm))\b`)

// trackerWord matches a hidden NPC's line in the tracker, and a word
// line of a reply: "**Goblin**: Badly wounded".
var trackerWord = regexp.MustCompile(`\*\*(Goblin|Imp(?:ann|gm))\*\*: ([A-Z][a-z]+(?: [a-z]+)?)`)

// stateTerms are the terms of a character's state and numbers, which no
// line about a hidden NPC may use for players (its word is all they read):
// "cannot act (stunned …)" told that it was stunned.
var stateTerms = regexp.MustCompile(`(?i)\b(cannot act|turn skipped|stunned|bleed\w*|dying|unconscious|asleep|sleeps|stable|disabled|fatigued|exhausted|0-HP choice|Die Hard|wound\w*|saves?|saving|stabiliz\w*|harm counter|rerolls|initiative \**\d|HP|HD|MP|WP|vigor|instinct|reason)\b`)

// customIDToken is what a token of a custom_id a player's client receives
// may be: a number (a character's id, an event's number, a page), a word.
var customIDToken = regexp.MustCompile(`^(\d{1,9}|[a-z][a-z-]*)$`)

// publicWords are the colours of the words players may read of a hidden
// NPC.
var publicWords = map[string]int{"Unhurt": view.ColorFine, "Healthy": view.ColorFine, "Wounded": view.ColorWounded, "Bloody": view.ColorWounded,
	"Badly wounded": view.ColorZero, "Broken": view.ColorZero, "Down": view.ColorZero, "Taken out": view.ColorDying, "Dead": view.ColorDead}

// checkBytes fails the test when a message a non-GM receives has a byte
// derived from a hidden NPC's state (see the comment at the top).
func (r *privacyRun) checkBytes(user, what string, msgs []*commands.Response) {
	r.t.Helper()
	named := hiddenName.MatchString(what) || strings.Contains(what, "→ [")
	for _, msg := range msgs {
		var ids []string
		for _, row := range msg.Components {
			for _, b := range row {
				ids = append(ids, b.CustomID)
			}
		}
		if msg.Modal != nil {
			ids = append(ids, msg.Modal.CustomID)
		}
		for _, id := range ids {
			for i, tok := range strings.Split(id, ":") {
				nonce := i == 1 && strings.HasPrefix(id, "faces:") && regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(tok)
				if !customIDToken.MatchString(tok) && !nonce {
					r.t.Errorf("%s: %s: a non-GM's client receives the custom_id %q, whose %q is no id, number or word", user, what, id, tok)
				}
			}
		}
		for _, e := range msg.Embeds {
			if !hiddenName.MatchString(e.Title) || e.Footer != "hidden by the GM" {
				continue
			}
			word := strings.Trim(e.Description, "*")
			if c, ok := publicWords[word]; !ok || c != e.Color || len(e.Fields) > 0 {
				r.t.Errorf("%s: %s: a non-GM reads the hidden %s's embed %q in colour %#x with %d fields; want its word alone, in the word's colour", user, what, e.Title, e.Description, e.Color, len(e.Fields))
			}
		}
		for _, f := range msg.Files {
			if s := r.secret(f.Name); s != "" {
				r.t.Errorf("%s: %s: a non-GM receives a file named %q, which shows %q", user, what, f.Name, s)
			}
		}
		for _, line := range strings.Split(messageText(msg), "\n") {
			if !hiddenName.MatchString(line) {
				continue
			}
			for w := range publicWords { // a hidden NPC's word is its players'
				line = strings.ReplaceAll(line, w, "")
			}
			if t := stateTerms.FindString(line); t != "" {
				r.t.Errorf("%s: %s: a non-GM reads %q of a hidden NPC: %q", user, what, t, line)
			}
		}
		if strings.Contains(what, "(the tracker)") || named {
			continue
		}
		for _, m := range trackerWord.FindAllStringSubmatch(msg.Content, -1) {
			if w, ok := r.words[m[1]]; ok && w == m[2] {
				r.t.Errorf("%s: %s: a non-GM reads the hidden %s's word %q, which did not change and which the command did not ask for: that tells them something happened to it:\n%s", user, what, m[1], m[2], msg.Content)
			}
		}
	}
}

// gmChannel takes what a table's GM channel gets: the GMs' alone.
type gmChannel struct{}

func (gmChannel) PostToGMs(context.Context, string, *commands.Response) error { return nil }

// secret returns the first secret text shows, or "".
func (r *privacyRun) secret(text string) string {
	for _, re := range r.pt.secrets {
		if m := re.FindString(text); m != "" {
			return m
		}
	}
	return ""
}

// messageText is all the text of a message: content, embeds, button
// labels, a modal's title and labels, autocomplete choices, file names.
func messageText(resp *commands.Response) string {
	var b strings.Builder
	b.WriteString(commandstest.Text(resp))
	for _, row := range resp.Components {
		for _, btn := range row {
			b.WriteString("\n[" + btn.Label + "]")
		}
	}
	if m := resp.Modal; m != nil {
		b.WriteString("\n" + m.Title)
		for _, in := range m.Inputs {
			b.WriteString("\n" + in.Label + " " + in.Placeholder)
		}
	}
	for _, c := range resp.Choices {
		b.WriteString("\n" + c.Name + " " + c.Value)
	}
	for _, f := range resp.Files {
		b.WriteString("\n" + f.Name)
		if f.ContentType != "image/png" {
			b.WriteString("\n" + string(f.Data))
		}
	}
	return b.String()
}

// autocomplete asks, as the player, for the suggestions of every option
// that has them, empty and with the Goblin's initial typed.
func (r *privacyRun) autocomplete() {
	r.t.Helper()
	for _, c := range r.tb.Svc.Registry().Commands() {
		subs := []*commands.Subcommand{{}}
		if len(c.Subcommands) > 0 {
			subs = c.Subcommands
		}
		for _, s := range subs {
			opts := c.Options
			if s.Name != "" {
				opts = s.Options
			}
			for _, o := range opts {
				if !o.Autocomplete {
					continue
				}
				for _, typed := range []string{"", "G"} {
					req := &commands.Request{Kind: commands.KindAutocomplete, ChannelID: r.tb.Channel, GuildID: "g1", UserID: "ann", UserName: "ann",
						Command: c.Name, Subcommand: s.Name, Options: map[string]string{o.Name: typed}, Focused: o.Name}
					r.check("ann", fmt.Sprintf("?/%s %s %s:%s", c.Name, s.Name, o.Name, typed), r.tb.Svc.Handle(context.Background(), req))
				}
			}
		}
	}
}

// TestPrivacyScenariosAreKnownPaths: every scenario names a command path of
// the registry, so a renamed command cannot leave a scenario behind.
func TestPrivacyScenariosAreKnownPaths(t *testing.T) {
	paths := registryPaths(newTable(t).Svc.Registry())
	sort.Strings(paths)
	for _, s := range privacyScenarios {
		if !slices.Contains(paths, s.path) {
			t.Errorf("privacy scenario %q names no command of the registry (%v)", s.path, paths)
		}
	}
}
