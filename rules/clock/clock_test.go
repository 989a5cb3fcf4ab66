package clock

import "testing"

func TestString(t *testing.T) {
	tests := []struct {
		t    Time
		want string
	}{
		{0, "day 1, 00:00"},
		{3, "day 1, 00:03"},
		{Time(0).Add(1, Turn), "day 1, 00:10"},
		{Time(0).Add(25, Hour).Add(2, Turn).Add(4, Round), "day 2, 01:24"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("Time(%d).String() = %q; want %q", int64(tt.t), got, tt.want)
		}
	}
}

func TestUnits(t *testing.T) {
	if Hour.Rounds() != 6*Turn.Rounds() || Day.Rounds() != 24*Hour.Rounds() {
		t.Fatalf("1 hour = 6 turns and 1 day = 24 hours must hold (RULES.md §0.2)")
	}
	// A turn passes more rounds than the longest round timer (8 rounds).
	if Turn.Rounds() <= 8 {
		t.Errorf("Turn.Rounds() = %d; want more than 8", Turn.Rounds())
	}
	for _, s := range []string{"rounds", "Round", "turns", "HOURS", "day"} {
		if _, err := ParseUnit(s); err != nil {
			t.Errorf("ParseUnit(%q) = %v", s, err)
		}
	}
	if _, err := ParseUnit("weeks"); err == nil {
		t.Errorf("ParseUnit(weeks) succeeded; want an error")
	}
}

func TestPassed(t *testing.T) {
	tests := []struct {
		from, to Time
		u        Unit
		want     int64
	}{
		{0, 59, Hour, 0},
		{0, 60, Hour, 1},
		{59, 61, Hour, 1},
		{30, 30 + 3*RoundsPerHour, Hour, 3},
		{0, RoundsPerDay, Day, 1},
		{RoundsPerDay - 1, RoundsPerDay, Day, 1},
		{10, 5, Hour, 0},
	}
	for _, tt := range tests {
		if got := Passed(tt.from, tt.to, tt.u); got != tt.want {
			t.Errorf("Passed(%d, %d, %v) = %d; want %d", tt.from, tt.to, tt.u, got, tt.want)
		}
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		r    int64
		want string
	}{
		{0, "0 rounds"},
		{1, "1 round"},
		{RoundsPerDay*2 + RoundsPerHour*3, "2 days 3 hours"},
		{RoundsPerTurn + 5, "1 turn 5 rounds"},
	}
	for _, tt := range tests {
		if got := Duration(tt.r); got != tt.want {
			t.Errorf("Duration(%d) = %q; want %q", tt.r, got, tt.want)
		}
	}
}

// TestReadingRoundIsOneMinute is RULES.md §0.2's Reading: a round is one
// minute on the clock, 10 rounds a turn and 60 an hour, so 1 day is 24 × 60
// = 1,440 rounds, round 75 reads 01:15, and a turn (10 rounds) passes more
// rounds than the longest round timer (2d4 or 1d8: 8).
func TestReadingRoundIsOneMinute(t *testing.T) {
	if Turn.Rounds() != 10 || Hour.Rounds() != 60 || Day.Rounds() != 1440 {
		t.Errorf("a turn, an hour, a day = %d, %d, %d rounds; want 10, 60, 1440", Turn.Rounds(), Hour.Rounds(), Day.Rounds())
	}
	if got := Time(75).String(); got != "day 1, 01:15" {
		t.Errorf("round 75 = %q; want day 1, 01:15", got)
	}
	if got := Time(0).Add(1440, Round).String(); got != "day 2, 00:00" {
		t.Errorf("1,440 rounds = %q; want day 2, 00:00", got)
	}
	if Turn.Rounds() <= 8 {
		t.Errorf("a turn is %d rounds; want more than the longest round timer, 8", Turn.Rounds())
	}
}
