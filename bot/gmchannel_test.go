package bot

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
)

// TestGMChannelPosts: a result only GMs may read is posted in the GM
// channel with the bot token, its text and embeds and no buttons, pinging
// nobody; a post Discord refuses is an error (the GM screen queues it).
func TestGMChannelPosts(t *testing.T) {
	fake := &fakeTrackerREST{}
	g := NewGMChannel(restSession(t, fake))
	msg := &commands.Response{Content: "From ann's /init next:\n**Bandit**: WP -2 <@ann>", Embeds: []commands.Embed{{Title: "Bandit"}},
		Components: [][]commands.Button{{{Label: "Stay Up", CustomID: "hp0:2:9:up"}}}}
	if err := g.PostToGMs(context.Background(), "chan-1", msg); err != nil {
		t.Fatal(err)
	}
	if len(fake.posts) != 1 {
		t.Fatalf("posts %q; want one", fake.posts)
	}
	var sent struct {
		Content         string            `json:"content"`
		Embeds          []json.RawMessage `json:"embeds"`
		Components      []json.RawMessage `json:"components"`
		AllowedMentions struct {
			Parse []string `json:"parse"`
		} `json:"allowed_mentions"`
	}
	if err := json.Unmarshal([]byte(fake.posts[0]), &sent); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fake.posts[0], `"allowed_mentions":{`) || !strings.Contains(sent.Content, "**Bandit**: WP -2") || len(sent.Embeds) != 1 || len(sent.Components) != 0 || len(sent.AllowedMentions.Parse) != 0 {
		t.Errorf("posted %s; want the text and the embed, no buttons, no pings", fake.posts[0])
	}
	if err := g.PostToGMs(context.Background(), "elsewhere", msg); err == nil {
		t.Error("a post Discord refuses returned no error")
	}
}
