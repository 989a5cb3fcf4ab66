package console

import (
	"context"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/gmscreen"
)

// gmPoster "posts" the results only GMs may read in a table's GM channel
// (commands/gmscreen) in the fake Discord: the console prints each after
// the reply that had it, headed "(posted in #channel)".
type gmPoster struct{ c *Console }

func (p gmPoster) PostToGMs(ctx context.Context, channelID string, msg *commands.Response) error {
	var b strings.Builder
	b.WriteString("(posted in #" + channelID + ")\n")
	renderMessage(&b, msg, "")
	p.c.gmPosts = append(p.c.gmPosts, b.String())
	return nil
}

// setupGMScreen lets a table name a GM channel in the console, when the
// service has the GM screen (commands/gmscreen).
func (c *Console) setupGMScreen() {
	if g := gmscreen.Of(c.svc.Registry()); g != nil {
		g.SetPoster(gmPoster{c}, "")
	}
}

// printGMPosts prints what was posted in GM channels since it last ran.
func (c *Console) printGMPosts() {
	for _, p := range c.gmPosts {
		c.print(p)
	}
	c.gmPosts = nil
}
