package commands_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// TestRetriedInteractionRefusedNamingItsHistoryEntry: an interaction that
// reaches the bot again after it was applied (a retry after an ambiguous
// error, on this replica or another) is not applied again, and is not
// answered with its first reply either: it is refused, ephemerally, with a
// reply that says it was applied the first time, as which event, and the
// /history command that shows that event, which works as printed.
func TestRetriedInteractionRefusedNamingItsHistoryEntry(t *testing.T) {
	tb := commandstest.New(t, commandstest.Systems()...)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	req := tb.Request("!gm", "/clock action:next-round")
	req.InteractionID = "1311000000000007001"
	tb.OK(tb.Svc.Handle(context.Background(), req))
	before := tb.State()
	again := tb.Request("!gm", "/clock action:next-round")
	again.InteractionID = req.InteractionID
	resp := tb.Svc.Handle(context.Background(), again)
	seq := 2 // the setup is #1
	tb.Refused(resp, fmt.Sprintf("applied already, the first time it reached the bot, as #%d: `/history before:#%d` shows it. It was not applied again.", seq, seq+1))
	if after := tb.State(); after != before {
		t.Errorf("the retry changed the table:\n%s\nwas\n%s", after, before)
	}
	hist := commandstest.Text(tb.Do("!gm", fmt.Sprintf("/history before:#%d", seq+1)))
	if !strings.Contains(hist, fmt.Sprintf("`#%d`", seq)) {
		t.Errorf("/history before:#%d, as the refusal prints it:\n%s\nwant event #%d", seq+1, hist, seq)
	}
}
