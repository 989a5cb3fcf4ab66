package commands_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// usageError matches the refusals of a command that was not typed right:
// a suggested command must never get one.
var usageError = regexp.MustCompile(`needs the option|has no option|takes no options|Unknown command|has no subcommand|needs a subcommand|No character named|must be one of|must be [a-z]+ at|is not used by|is not valid|Unknown stat|Bad dice|must be a whole number|must be true or false`)

// TestSuggestedFixesWork: every command a reply suggests ("use /char show
// name:Sir Bob to get the buttons again") works when typed as printed: each
// is taken from the text as the console prints it, run as the user it
// speaks to, and must not be refused as mistyped. The cases are the replies
// of the code that suggest a command (grep the message strings for "/").
func TestSuggestedFixesWork(t *testing.T) {
	cases := []struct {
		name, system string
		setup        []string
		user, line   string
		// runAs runs the suggestions ("" the user of line).
		runAs string
		// want are the suggestions the reply must make.
		want []string
	}{
		{name: "0-HP choice pending", system: "hit-protection",
			setup: []string{`ann /char create name:"Sir Bob" stats:"class=fighter hit-die=d6 hp=2"`, `!gm /damage target:"Sir Bob" amount:2`},
			user:  "!gm", line: `/damage target:"Sir Bob" amount:1`, runAs: "ann", want: []string{`/char show name:Sir Bob`}},
		{name: "bleeding out", system: "hit-protection",
			setup: []string{`ann /char create name:Lister stats:"class=fighter hit-die=d6 hp=2"`, "!gm /damage target:Lister amount:2", ":dice 6,5,13,3"},
			user:  "ann", line: "press Stay Up", runAs: "!gm", want: []string{"/attend target:Lister skilled:true"}},
		{name: "Fatal Wound I without a skilled healer", system: "hit-protection",
			setup: []string{`ann /char create name:"Sir Bob" stats:"class=fighter hit-die=d6 hp=2"`, `!gm /damage target:"Sir Bob" amount:2`, ":dice 5,6,12,2", "ann press Stay Up"},
			user:  "!gm", line: `/attend target:"Sir Bob"`, want: []string{`/attend target:Sir Bob skilled:true`}},
		{name: "catch-breath off", system: "hit-protection",
			setup: []string{`ann /char create name:Lister stats:"class=fighter hit-die=d6 hp=2"`},
			user:  "ann", line: "/rest kind:breath", runAs: "!gm", want: []string{"/table option name:catch-breath value:on"}},
		{name: "Die Hard pending", system: "hp-mp-wp",
			setup: []string{`ann /char create name:"Big Bram" stats:"hp-max=5 feats=die-hard"`, ":dice 4", `!gm /damage target:"Big Bram" amount:17`},
			user:  "!gm", line: `/damage target:"Big Bram" amount:1`, runAs: "ann", want: []string{`/char show name:Big Bram`}},
		{name: "no such ability", system: "harm",
			setup: []string{`ann /char create name:Esme stats:"endure=1"`},
			user:  "ann", line: "/roll as:Esme ability:swim", want: []string{"/char set name:Esme stats:swim=0"}},
		{name: "heal after a day of rest", system: "harm",
			setup: []string{`ann /char create name:"Old Garrett" stats:"endure=0 vigor=2"`, ":dice -1,-1,-1", `!gm /damage target:"Old Garrett" amount:2`},
			user:  "!gm", line: "/rest kind:day", runAs: "ann", want: []string{`/heal target:Old Garrett trigger:rest`}},
		{name: "option of another system", system: "harm",
			user: "ann", line: "/damage target:X amount:1 crit:2", want: []string{"/help topic:damage"}},
		{name: "value of another system", system: "harm",
			user: "ann", line: "/rest kind:night", want: []string{"/help topic:rest"}},
		{name: "command of another system", system: "hit-protection",
			user: "ann", line: "/strain target:X", want: []string{"/help topic:hit-protection"}},
		{name: "no such character", system: "hit-protection",
			user: "ann", line: "/char show name:Nobody", want: []string{"/char list"}},
		{name: "no such table option", system: "hp-mp-wp",
			user: "!gm", line: "/table option name:foo value:on", want: []string{"/help topic:table"}},
		{name: "no chart", system: "hp-mp-wp",
			user: "ann", line: "/odds", want: []string{"/odds expr:2d10", "/odds expr:1d20"}},
		{name: "import without a file", system: "harm",
			user: "!gm", line: "/table import file:x.json", want: []string{"/table export"}},
		{name: "a day's advance with no sleep", system: "hp-mp-wp",
			setup: []string{`ann /char create name:"Big Bram" stats:"hp-max=5"`},
			user:  "!gm", line: "/clock action:advance amount:1 unit:days", want: []string{"/rest kind:night", "/clock action:advance amount:16 unit:hours", "/clock action:advance amount:1 unit:days awake:true"}},
		{name: "deletion asked before a change", system: "hit-protection",
			setup: []string{`ann /char create name:"Sir Bob" stats:"class=fighter hit-die=d6 hp=2"`, `ann /char delete name:"Sir Bob"`, `!gm /damage target:"Sir Bob" amount:1`},
			user:  "ann", line: "press Delete", want: []string{`/char delete name:Sir Bob`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := newTable(t)
			tb.OK(tb.Do("!gm", "/table setup system:"+c.system))
			var last *commands.Response // the latest reply with buttons, for press
			run := func(user, line string) *commands.Response {
				t.Helper()
				var resp *commands.Response
				switch {
				case strings.HasPrefix(line, ":dice "):
					for _, f := range strings.Split(strings.TrimPrefix(line, ":dice "), ",") {
						tb.Dice.Push(atoi(t, f))
					}
					return nil
				case strings.HasPrefix(line, "press "):
					resp = tb.Press(strings.TrimPrefix(user, "!"), last, strings.TrimPrefix(line, "press "))
				default:
					resp = tb.Do(user, line)
				}
				if len(resp.Components) > 0 {
					last = resp
				}
				return resp
			}
			for _, s := range c.setup {
				user, line, _ := strings.Cut(s, " ")
				if strings.HasPrefix(s, ":") {
					user, line = "", s
				}
				run(user, line)
			}
			text := commandstest.Text(run(c.user, c.line))
			got := suggested(tb.Svc.Registry(), text)
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Fatalf("%s = %q suggests %q; want %q among them", c.line, text, got, w)
				}
			}
			runAs := c.runAs
			if runAs == "" {
				runAs = c.user
			}
			for _, s := range got {
				if out := commandstest.Text(tb.Do(runAs, s)); usageError.MatchString(out) {
					t.Errorf("%s suggests %q, which %s runs and gets %q", c.line, s, runAs, out)
				}
			}
		})
	}
}

// TestSuggestedExtraction pins how suggestions are read from a text.
func TestSuggestedExtraction(t *testing.T) {
	reg := newTable(t).Svc.Registry()
	text := "Use `/char show name:Sir Bob` to get the buttons again; /undo brings it back. `/odds expr:2d10` or /table option name:dice value:manual. ``/attend target:a`b``"
	want := []string{"/char show name:Sir Bob", "/odds expr:2d10", "/attend target:a`b", "/undo", "/table option name:dice value:manual"}
	if got := suggested(reg, text); !slices.Equal(got, want) {
		t.Errorf("suggested(%q) = %q; want %q", text, got, want)
	}
}

// codeSpans returns the texts of the Discord code spans in text (a run of
// backticks, the text, a run of as many), and text with each span a space.
func codeSpans(text string) (spans []string, rest string) {
	var b strings.Builder
	for i := 0; i < len(text); {
		if text[i] != '`' {
			b.WriteByte(text[i])
			i++
			continue
		}
		n := 1
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		fence := strings.Repeat("`", n)
		end := -1
		for j := i + n; j < len(text); {
			k := strings.Index(text[j:], fence)
			if k < 0 {
				break
			}
			k += j
			m := len(fence)
			for k+m < len(text) && text[k+m] == '`' {
				m++
			}
			if m == n && text[k-1] != '`' {
				end = k
				break
			}
			j = k + m
		}
		if end < 0 {
			b.WriteString(fence)
			i += n
			continue
		}
		spans = append(spans, strings.TrimSpace(text[i+n:end]))
		b.WriteByte(' ')
		i = end + n
	}
	return spans, b.String()
}

// suggested returns the commands text suggests, as a user would type them:
// first each code span that holds a registered command (its text, exactly
// as printed: a name in it may hold spaces); then, in the rest of the
// text, a registered command, its subcommand when it has subcommands, and
// the options of that command that follow, a value ending before a space
// (or a closing quote) and trailing punctuation. A bare command that needs
// options ("/strain is not part of …") is a mention, not a suggestion, and
// so is a template ("/odds expr:…").
func suggested(reg *commands.Registry, text string) []string {
	var out []string
	spans, text := codeSpans(text)
	for _, cmd := range spans {
		name, _, _ := strings.Cut(strings.TrimPrefix(cmd, "/"), " ")
		if strings.HasPrefix(cmd, "/") && reg.Lookup(name) != nil && !strings.Contains(cmd, "…") {
			out = append(out, cmd)
		}
	}
	for _, loc := range regexp.MustCompile(`(^|[\s(])/([a-z]+)`).FindAllStringSubmatchIndex(text, -1) {
		c := reg.Lookup(text[loc[4]:loc[5]])
		if c == nil {
			continue
		}
		rest := text[loc[5]:]
		line := "/" + c.Name
		opts := c.Options
		if len(c.Subcommands) > 0 {
			m := regexp.MustCompile(`^ ([a-z]+)`).FindStringSubmatch(rest)
			if m == nil || c.Sub(m[1]) == nil {
				continue
			}
			line += " " + m[1]
			opts = c.Sub(m[1]).Options
			rest = rest[len(m[0]):]
		}
		for {
			m := regexp.MustCompile(`^ ([a-z-]+):("[^"]*"|[^\s"]+)`).FindStringSubmatch(rest)
			if m == nil || !slices.ContainsFunc(opts, func(o commands.Option) bool { return o.Name == m[1] }) {
				break
			}
			v := m[2]
			if !strings.HasPrefix(v, `"`) {
				v = strings.TrimRight(v, ".,;)")
			}
			line += " " + m[1] + ":" + v
			rest = rest[len(m[0]):]
		}
		bare := !strings.Contains(line, ":")
		if bare && slices.ContainsFunc(opts, func(o commands.Option) bool { return o.Required }) || strings.Contains(line, "…") {
			continue
		}
		out = append(out, line)
	}
	return out
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	neg := strings.HasPrefix(s, "-")
	for _, r := range strings.TrimPrefix(s, "-") {
		if r < '0' || r > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(r-'0')
	}
	if neg {
		n = -n
	}
	return n
}

// TestQuotedNamesAsDiscordPassesThem: Discord passes an option's quotes
// along (a player who types name:"Bandit Captain", as replies used to
// print it, sends the quotes). Name options, and stats, take one pair of
// quotes around the value (or around each name of a target list) off;
// and a reply suggests the name without quotes.
func TestQuotedNamesAsDiscordPassesThem(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	do := func(user, line string, opts map[string]string) *commands.Response {
		t.Helper()
		r := tb.Request(user, line)
		for k, v := range opts {
			r.Options[k] = v
		}
		return tb.Svc.Handle(context.Background(), r)
	}
	commandstest.WantIn(t, "create", tb.OK(do("!gm", "/char create", map[string]string{"name": `"Bandit Captain"`, "stats": `"class=fighter hp=2"`})), "Created **Bandit Captain**")
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"hp=6"`))
	commandstest.WantIn(t, "damage", tb.OK(do("!gm", "/damage amount:1", map[string]string{"target": `"Bandit Captain", “Lister”`})), "Bandit Captain", "Lister")
	commandstest.WantIn(t, "show", tb.OK(do("ann", "/char show", map[string]string{"name": ` "Bandit Captain" `})), "Bandit Captain")
	// The 0-HP choice pending: the suggested /char show names the captain
	// without quotes, and works as printed.
	tb.OK(tb.Do("!gm", `/damage target:"Bandit Captain" amount:1`))
	text := commandstest.Text(tb.Do("!gm", "/damage target:Bandit Captain amount:1"))
	want := "/char show name:Bandit Captain"
	if got := suggested(tb.Svc.Registry(), text); !slices.Contains(got, want) {
		t.Fatalf("refusal %q suggests %q; want %q", text, got, want)
	}
	if strings.Contains(text, `"Bandit Captain"`) {
		t.Errorf("refusal %q quotes the name", text)
	}
	if out := commandstest.Text(tb.Do("!gm", want)); !strings.Contains(out, "Heroic Death") {
		t.Errorf("%s = %q; want the 0-HP choice again", want, out)
	}
}

// TestRefusalOnAnothersCharacterSaysWhatWorks: a player refused an action
// on another's character is told the way that works, and it works as
// printed: at hp-mp-wp a player may neither damage the GM's NPC nor heal
// another player's character, and is told to ask the owner or a GM to run
// the command; at harm a player may give first aid with a character of
// their own, and is told so.
func TestRefusalOnAnothersCharacterSaysWhatWorks(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!carol", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"hp-max=30"`))
	tb.OK(tb.Do("carol", `/char create name:"Bandit Captain" stats:"hp-max=10"`))
	tb.OK(tb.Do("bob", `/char create name:Rimmer stats:"hp-max=6"`))
	tb.Private(tb.Do("!carol", `/char create name:Ogre stats:"hp-max=12 hidden=true"`))
	tb.OK(tb.Do("carol", "/damage target:Rimmer amount:3"))
	for _, c := range []struct{ line, runAs, want string }{
		{"/damage target:Bandit Captain amount:2", "carol", "HP 10 → 8"},
		{"/heal target:Rimmer amount:2", "bob", "HP 3 → 5"},
	} {
		refusal := tb.Do("ann", c.line)
		tb.Refused(refusal, "Ask one of them to run")
		got := suggested(tb.Svc.Registry(), commandstest.Text(refusal))
		if len(got) != 1 {
			t.Fatalf("%s refused with %q, which suggests %q; want one command", c.line, refusal.Content, got)
		}
		commandstest.WantIn(t, got[0]+" as printed", tb.OK(tb.Do(c.runAs, got[0])), c.want)
	}

	// A hidden NPC, the usual foe: the refusal says to ask the GM, without
	// echoing a line that could hold its numbers.
	tb.Refused(tb.Do("ann", "/damage target:Ogre amount:2"), "Ogre belongs to <@carol>: only its owner or a GM can do that. Ask one of them to run it for you.")

	// At hp-mp-wp a dying character may be stabilized by anyone's Heal
	// check: the refusal of a /heal names that way too, with a character
	// of the caller's own.
	tb.Dice.Push(5)
	commandstest.WantIn(t, "dying", tb.OK(tb.Do("carol", "/damage target:Rimmer amount:17")), "WP 10 → -2", "dying") // HP 5 → 0; the save fails
	refusal := tb.Do("ann", "/heal target:Rimmer amount:2")
	tb.Refused(refusal, "Ask one of them to run `/heal amount:2 target:Rimmer`. Or stabilize it with a Heal check (DC 15), which needs no leave: `/attend target:Rimmer healer:Lister`.")
	tb.Dice.Push(15)
	commandstest.WantIn(t, "/attend as printed", tb.OK(tb.Do("ann", "/attend target:Rimmer healer:Lister")), "**Lister** attends", "stable")
	tb.NoDiceLeft()

	tb.Channel = "chan-2"
	tb.OK(tb.Do("!carol", "/table setup system:harm"))
	tb.OK(tb.Do("ann", `/char create name:Esme stats:"first-aid=2"`))
	tb.OK(tb.Do("bob", `/char create name:Rimmer stats:"endure=1"`))
	tb.Dice.Push(-1, -1, -1)
	tb.OK(tb.Do("carol", "/damage target:Rimmer amount:2"))
	refusal = tb.Do("ann", "/heal target:Rimmer trigger:pools")
	tb.Refused(refusal, "first aid or counsel yourself")
	got := suggested(tb.Svc.Registry(), commandstest.Text(refusal))
	want := "/heal target:Rimmer trigger:first-aid healer:Esme"
	if !slices.Contains(got, want) {
		t.Fatalf("refusal %q suggests %q; want %q", refusal.Content, got, want)
	}
	tb.Dice.Push(1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0)
	healed := tb.OK(tb.Do("ann", want))
	commandstest.WantIn(t, want+" as printed", healed, "**Esme** gives **Rimmer** first aid", "Bloody → Healthy")
	tb.NoDiceLeft()
}
