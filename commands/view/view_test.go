package view

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/storage"
)

func TestBarText(t *testing.T) {
	for _, c := range []struct {
		bar  Bar
		want string
	}{
		{Bar{Label: "HP", Current: 6, Max: 10}, "HP ██████░░░░ 6/10"},
		{Bar{Label: "HP", Current: 10, Max: 10}, "HP ██████████ 10/10"},
		{Bar{Label: "HP", Current: 0, Max: 10}, "HP ░░░░░░░░░░ 0/10"},
		{Bar{Label: "HP", Current: 1, Max: 40}, "HP █░░░░░░░░░ 1/40"},   // never empty above 0
		{Bar{Label: "HP", Current: 39, Max: 40}, "HP █████████░ 39/40"}, // never full below max
		{Bar{Label: "WP", Current: -3, Max: 12}, "WP ░░░░░░░░░░ -3/12"}, // negative WP
		{Bar{Label: "MP", Current: 0, Max: 0}, "MP ░░░░░░░░░░ 0/0"},
	} {
		if got := c.bar.Text(); got != c.want {
			t.Errorf("%+v.Text() = %q, want %q", c.bar, got, c.want)
		}
	}
}

// TestSplitTimers: a timer names a time of the clock ("… until day 3,
// 00:00") or the rounds it has left ("stunned for 2 more rounds", "dies
// in 1 round"); a condition that ends with an event ("down (fate hidden
// until attended)") is a condition, not a timer.
func TestSplitTimers(t *testing.T) {
	conds, timers := SplitTimers([]string{"down (fate hidden until attended)", "1 untreated wound", "stunned for 2 more rounds",
		"no use of the left arm until day 22, 00:00", "Critical Wound: dies in 1 round"})
	if strings.Join(conds, "|") != "down (fate hidden until attended)|1 untreated wound" ||
		strings.Join(timers, "|") != "stunned for 2 more rounds|no use of the left arm until day 22, 00:00|Critical Wound: dies in 1 round" {
		t.Errorf("SplitTimers = %q, %q", conds, timers)
	}
}

// TestPublicWords: a hidden character's word and its colour, which is the
// colour of the word alone: Down is one colour whether the character is at
// 0 or dying, and a character still on its feet (Standing) is Badly
// wounded, never Down, at 0 or dying. A system's own words (harm's) come
// with the level they stand for.
func TestPublicWords(t *testing.T) {
	for _, c := range []struct {
		v     Character
		word  string
		color int
	}{
		{Character{Level: LevelFine}, "Unhurt", 0x57F287},
		{Character{Level: LevelWounded}, "Wounded", 0xFEE75C},
		{Character{Level: LevelZero}, "Down", 0xE67E22},
		{Character{Level: LevelDying}, "Down", 0xE67E22},
		{Character{Level: LevelZero, Standing: true}, "Badly wounded", 0xE67E22},
		{Character{Level: LevelDying, Standing: true}, "Badly wounded", 0xE67E22},
		{Character{Level: LevelDead}, "Dead", 0x2C2F33},
		{Character{Level: LevelWounded, Word: Word{"Healthy", LevelFine}}, "Healthy", 0x57F287},
	} {
		if w := c.v.Public(); w.Text != c.word || w.Color() != c.color {
			t.Errorf("%+v.Public() = %q in %#x; want %q in %#x", c.v, w.Text, w.Color(), c.word, c.color)
		}
	}
}

// TestAudienceFor: a GM and a hidden character's owner read its whole
// view; anyone else its word and that word's level only; a visible
// character's view is everyone's.
func TestAudienceFor(t *testing.T) {
	full := Character{Level: LevelDying, Bars: []Bar{{"HP", -2, 8}}, State: "dying", Conditions: []string{"bleeding"}, Timers: []string{"dies at day 1, 00:03"}}
	hidden := &storage.Character{Name: "Goblin", OwnerID: "dm", Hidden: true}
	visible := &storage.Character{Name: "Lister", OwnerID: "ann"}
	for _, c := range []struct {
		a    Audience
		c    *storage.Character
		full bool
	}{
		{Channel, hidden, false},
		{Audience{UserID: "ann"}, hidden, false},
		{Audience{UserID: "bob", GM: true}, hidden, true},
		{Audience{UserID: "dm"}, hidden, true},
		{Channel, visible, true},
		{Audience{UserID: "bob"}, visible, true},
	} {
		got := c.a.For(c.c, full)
		want := full
		if !c.full {
			want = Character{Level: LevelZero, Word: Word{"Down", LevelZero}}
		}
		if !reflect.DeepEqual(got, want) || c.a.Sees(c.c) != c.full {
			t.Errorf("%+v.For(%s) = %+v (sees %v); want %+v", c.a, c.c.Name, got, c.a.Sees(c.c), want)
		}
	}
}
