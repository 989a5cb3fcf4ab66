package console

import (
	"context"
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
)

// consolePoster "posts" tracker messages in the fake Discord: the console
// prints the tracker after the reply, and again after every change.
type consolePoster struct{ n int }

func (p *consolePoster) PostTracker(ctx context.Context, channelID string, resp *commands.Response) (string, error) {
	p.n++
	return fmt.Sprintf("console-tracker-%d", p.n), nil
}

// setupTracker lets /table tracker work in the console, when the service
// has the tracker (commands/tracker).
func (c *Console) setupTracker() {
	c.trackers = map[string]string{}
	if trk := tracker.Of(c.svc.Registry()); trk != nil {
		trk.SetPoster(&consolePoster{}, "")
	}
}

// printTracker prints the channel's tracker, headed "(tracker updated)",
// when the table has one and it reads differently from the last one printed
// (as the bot edits the tracker message after every change).
func (c *Console) printTracker(channel string) {
	trk := tracker.Of(c.svc.Registry())
	if trk == nil {
		return
	}
	id, resp, err := trk.Tracker(channel)
	if err != nil || id == "" || resp == nil {
		return
	}
	var b strings.Builder
	renderMessage(&b, resp, "")
	text := id + "\x00" + b.String()
	if c.trackers[channel] == text {
		return
	}
	c.trackers[channel] = text
	c.print("(tracker updated)\n" + b.String())
}
