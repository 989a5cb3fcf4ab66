package commands_test

import (
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// TestTyposAreNotNewWords: a class, stats key or ability a typo away from
// one the table's system names is refused with "did you mean …?", never
// silently taken as a class or an ability of its own (class=theif and
// enduer=2 were); a word marked new (+) is taken as typed, and the
// refusals' fixes work as printed.
//
// **Reading:** classes and harm abilities may be any word (COMMANDS.md:
// any other name=rank adds an ability), so a typo is told apart by its
// distance to a known word (spelling.Typo: one edit, two for words of six
// letters or more; none for words of three letters or fewer), and a
// player keeps such a word by marking it new: class=+theif, +enduer=2.
func TestTyposAreNotNewWords(t *testing.T) {
	cases := []struct {
		system, line string
		want         []string // in the refusal
		fixed        string   // the fix as printed, and a word of its reply
		fixedWant    string
		marked       string // the line with the word marked new, and a word of its reply
		markedWant   string
	}{
		{"hit-protection", `/char create name:Rook stats:"class=theif hp=2"`, []string{"class=theif: did you mean class=thief?", "class=+theif"},
			`/char create name:Rook stats:"class=thief hp=2"`, "Created **Rook**", `/char create name:Rook2 stats:"class=+theif hp=2"`, "Created **Rook2**"},
		{"hp-mp-wp", `/char create name:Vala stats:"class=wizzard hp-max=8"`, []string{"did you mean class=wizard?"},
			`/char create name:Vala stats:"class=wizard hp-max=8"`, "Created **Vala**", `/char create name:Vala2 stats:"class=+wizzard hp-max=8"`, "Created **Vala2**"},
		{"hp-mp-wp", `/char create name:Vala stats:"hp-mx=8"`, []string{`Unknown stat "hp-mx" for hp-mp-wp: did you mean hp-max?`}, "", "", "", ""},
		{"harm", `/char create name:Esme stats:"enduer=2"`, []string{"did you mean endure=2?", "+enduer=2"},
			`/char create name:Esme stats:"endure=2"`, "Created **Esme**", `/char create name:Esme2 stats:"+enduer=2"`, "Created **Esme2**"},
		{"harm", `/char create name:Esme stats:"vigr=4"`, []string{"did you mean vigor=4?"}, "", "", "", ""},
		{"harm", `/char create name:Esme stats:"first_aid=2"`, []string{"did you mean first-aid?"}, "", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.system+" "+c.line, func(t *testing.T) {
			tb := newTable(t)
			tb.OK(tb.Do("!gm", "/table setup system:"+c.system))
			before := tb.State()
			refusal := tb.Do("ann", c.line)
			for _, w := range c.want {
				tb.Refused(refusal, w)
			}
			if after := tb.State(); after != before {
				t.Errorf("%s changed the table:\n%s", c.line, after)
			}
			if c.fixed != "" {
				commandstest.WantIn(t, c.fixed, tb.OK(tb.Do("ann", c.fixed)), c.fixedWant)
				commandstest.WantIn(t, c.marked, tb.OK(tb.Do("ann", c.marked)), c.markedWant)
			}
		})
	}

	// The marked words are kept as typed: the class theif, the ability
	// enduer; the check of a typo of an ability names the one meant.
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:harm"))
	tb.OK(tb.Do("ann", `/char create name:Esme stats:"+enduer=2 swim=1"`))
	commandstest.WantIn(t, "show", tb.OK(tb.Do("ann", "/char show name:Esme")), "Enduer 2")
	tb.Refused(tb.Do("ann", "/roll as:Esme ability:swin"), `Esme has no ability "swin": did you mean swim?`)
	if out := tb.Do("ann", "/roll as:Esme ability:swin").Content; strings.Contains(out, "/char set") {
		t.Errorf("a typo of an ability is answered with a /char set that adds it: %q", out)
	}
	tb.Refused(tb.Do("ann", `/char set name:Esme stats:"swm=2"`), "did you mean swim=2?")
	// Abilities named together in one command are meant together: neither
	// is a typo of the other.
	tb.OK(tb.Do("ann", `/char create name:Bo stats:"climb=2 climbs=1"`))
}
