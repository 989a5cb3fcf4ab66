package hpmpwp_test

import (
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// TestReadingDayAdvanceAsksBeforeSleepless: a /clock advance of a day with no
// night's sleep used to keep the party awake past 16 hours without a word,
// exhausting it (RULES.md §2.6: an exertion save every hour after, each
// failure lowering the HP and MP maxima). Now it says so, changes nothing,
// and offers the night first or the advance with awake:true, each of which
// works as printed; an advance of less than a day is not asked about.
func TestReadingDayAdvanceAsksBeforeSleepless(t *testing.T) {
	party := func(t *testing.T) *commandstest.Table {
		tb := newTable(t)
		tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
		tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=30 con=15 fort=2"`))
		tb.OK(tb.Do("bob", `/char create name:Bram stats:"hp-max=12 con=10"`))
		return tb
	}
	const (
		night = "`/rest kind:night` (8 hours), then `/clock action:advance amount:16 unit:hours`"
		awake = "`/clock action:advance amount:1 unit:days awake:true`"
	)
	tb := party(t)
	before := tb.State()
	resp := tb.Do("ann", "/clock action:advance amount:1 unit:days")
	tb.Refused(resp, "That advance keeps **Vala** and **Bram** awake past 16 hours (from day 1, 17:00)")
	commandstest.WantIn(t, "refusal", resp.Content, "Nothing was changed.", "A night's sleep first: "+night+".", "Or keep them awake: "+awake+".")
	if after := tb.State(); after != before {
		t.Errorf("the refused advance changed the table:\n%s\nwant\n%s", after, before)
	}

	// The night first, as printed: nobody makes an exertion save (no dice
	// are scripted), and the day ends where the advance would have.
	tb.OK(tb.Do("ann", "/rest kind:night"))
	tb.OK(tb.Do("ann", "/clock action:advance amount:16 unit:hours"))
	commandstest.WantIn(t, "after the night", tb.OK(tb.Do("ann", "/clock")), "day 2, 00:00")
	commandstest.WantIn(t, "Vala after the night", tb.OK(tb.Do("ann", "/char show name:Vala")), "HP ██████████ 30/30", "exertion saves 0, failures 0")

	// Awake, as printed: 8 saves each (17:00 to 24:00), passed.
	tb = party(t)
	for range 16 {
		tb.Dice.Push(20)
	}
	commandstest.WantIn(t, "awake", tb.OK(tb.Do("ann", strings.Trim(awake, "`"))), "Fort (exertion, hours awake) ×8: 8 succeeded")
	tb.NoDiceLeft()
	commandstest.WantIn(t, "Vala awake", tb.OK(tb.Do("ann", "/char show name:Vala")), "exertion saves 8, failures 0")

	// Past a multiple-day advance, day by day; a day of sleep asked about
	// from where the sleepers wake.
	tb = party(t)
	tb.Refused(tb.Do("ann", "/clock action:advance amount:2 unit:days"), night+", day by day.")
	tb.OK(tb.Do("ann", "/rest kind:night"))
	tb.Refused(tb.Do("ann", "/clock action:advance amount:24 unit:hours"), "(from day 2, 01:00)")
}
