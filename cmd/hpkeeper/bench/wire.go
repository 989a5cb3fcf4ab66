package bench

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
)

// The interactions the load generator sends, shaped as Discord sends them
// (the fields of bot/testdata/interactions/*.json), so that the server decodes,
// verifies and converts as much as it does in production.

const (
	appID   = "1411000000000000001"
	guildID = "1411000000000000100"
	// gmPerms includes Manage Channels: the sender is a GM everywhere.
	gmPerms = "2147601488"
	// playerPerms is the same without Manage Channels.
	playerPerms = "2147601472"
)

// snowflakes hands out unique interaction ids.
var snowflakes atomic.Uint64

func init() { snowflakes.Store(1411000000000100000) }

// channelID is the channel (table) id of table n.
func channelID(n int) string { return strconv.Itoa(1412000000000000000 + n) }

// sender is who sends an interaction.
type sender struct {
	id, name, perms string
}

// gmOf is the GM of table n: a member with Manage Channels.
func gmOf(n int) sender {
	return sender{id: strconv.Itoa(1413000000000000000 + n*16), name: "GM " + strconv.Itoa(n), perms: gmPerms}
}

// playerOf is the player of character i at table n (its owner), without
// Manage Channels.
func playerOf(n, i int) sender {
	return sender{id: strconv.Itoa(1413000000000000000 + n*16 + 1 + i%15), name: "Player " + strconv.Itoa(i),
		perms: playerPerms}
}

type wireOption struct {
	Name    string       `json:"name"`
	Type    int          `json:"type"`
	Value   any          `json:"value,omitempty"`
	Options []wireOption `json:"options,omitempty"`
}

type wireData struct {
	ID            string       `json:"id,omitempty"`
	Name          string       `json:"name,omitempty"`
	Type          int          `json:"type,omitempty"`
	Options       []wireOption `json:"options,omitempty"`
	ComponentType int          `json:"component_type,omitempty"`
	CustomID      string       `json:"custom_id,omitempty"`
}

type wireUser struct {
	ID            string `json:"id"`
	Username      string `json:"username"`
	GlobalName    string `json:"global_name"`
	Discriminator string `json:"discriminator"`
	Avatar        any    `json:"avatar"`
	PublicFlags   int    `json:"public_flags"`
}

type wireMember struct {
	Avatar       any      `json:"avatar"`
	Deaf         bool     `json:"deaf"`
	Flags        int      `json:"flags"`
	JoinedAt     string   `json:"joined_at"`
	Mute         bool     `json:"mute"`
	Nick         any      `json:"nick"`
	Pending      bool     `json:"pending"`
	Permissions  string   `json:"permissions"`
	PremiumSince any      `json:"premium_since"`
	Roles        []string `json:"roles"`
	User         wireUser `json:"user"`
}

type wireChannel struct {
	Flags       int    `json:"flags"`
	GuildID     string `json:"guild_id"`
	ID          string `json:"id"`
	Name        string `json:"name"`
	NSFW        bool   `json:"nsfw"`
	ParentID    string `json:"parent_id"`
	Permissions string `json:"permissions"`
	Position    int    `json:"position"`
	Type        int    `json:"type"`
}

type wireGuild struct {
	Features []string `json:"features"`
	ID       string   `json:"id"`
	Locale   string   `json:"locale"`
}

type wireMessage struct {
	ID        string   `json:"id"`
	ChannelID string   `json:"channel_id"`
	Content   string   `json:"content"`
	Type      int      `json:"type"`
	Flags     int      `json:"flags"`
	Timestamp string   `json:"timestamp"`
	Author    wireUser `json:"author"`
}

type wireInteraction struct {
	AppPermissions string       `json:"app_permissions"`
	ApplicationID  string       `json:"application_id"`
	Channel        wireChannel  `json:"channel"`
	ChannelID      string       `json:"channel_id"`
	Context        int          `json:"context"`
	Data           wireData     `json:"data"`
	Entitlements   []any        `json:"entitlements"`
	Guild          wireGuild    `json:"guild"`
	GuildID        string       `json:"guild_id"`
	GuildLocale    string       `json:"guild_locale"`
	ID             string       `json:"id"`
	Locale         string       `json:"locale"`
	Message        *wireMessage `json:"message,omitempty"`
	Token          string       `json:"token"`
	Type           int          `json:"type"`
	Version        int          `json:"version"`
	Member         wireMember   `json:"member"`
}

// envelope returns the envelope of an interaction by u at table n.
func envelope(u sender, n int) wireInteraction {
	id := strconv.FormatUint(snowflakes.Add(1), 10)
	ch := channelID(n)
	return wireInteraction{
		AppPermissions: "562949953601536",
		ApplicationID:  appID,
		Channel: wireChannel{GuildID: guildID, ID: ch, Name: "table-" + strconv.Itoa(n),
			ParentID: "1411000000000000199", Permissions: gmPerms, Position: n % 50},
		ChannelID:    ch,
		Entitlements: []any{},
		Guild:        wireGuild{Features: []string{"COMMUNITY"}, ID: guildID, Locale: "en-US"},
		GuildID:      guildID,
		GuildLocale:  "en-US",
		ID:           id,
		Locale:       "en-GB",
		Token:        "aW50ZXJhY3Rpb246" + id + ":benchtoken",
		Version:      1,
		Member: wireMember{
			JoinedAt: "2025-06-01T18:00:00.000000+00:00", Nick: u.name, Permissions: u.perms,
			Roles: []string{"1411000000000000101"},
			User:  wireUser{ID: u.id, Username: "user_" + u.id, GlobalName: u.name, Discriminator: "0"},
		},
	}
}

// commandData is a slash command as typed: name, optional subcommand and
// string options in order.
type commandData struct {
	name, sub string
	opts      [][2]string
}

// body encodes c as u's application-command interaction at table n.
func (c commandData) body(u sender, n int) ([]byte, error) {
	i := envelope(u, n)
	i.Type = 2
	var opts []wireOption
	for _, o := range c.opts {
		opts = append(opts, wireOption{Name: o[0], Type: 3, Value: o[1]})
	}
	if c.sub != "" {
		opts = []wireOption{{Name: c.sub, Type: 1, Options: opts}}
	}
	i.Data = wireData{ID: "1411000000000020000", Name: c.name, Type: 1, Options: opts}
	return json.Marshal(i)
}

// pressBody encodes a button press on customID by u at table n.
func pressBody(u sender, n int, customID string) ([]byte, error) {
	i := envelope(u, n)
	i.Type = 3
	i.Data = wireData{ComponentType: 2, CustomID: customID}
	i.Message = &wireMessage{ID: "1411000000000030000", ChannelID: i.ChannelID, Content: "Delete?",
		Timestamp: "2025-06-01T18:00:00.000000+00:00", Author: wireUser{ID: appID, Username: "hpkeeper", Discriminator: "0"}}
	return json.Marshal(i)
}

// sign returns the X-Signature-Ed25519 header value for body sent at stamp.
func sign(priv ed25519.PrivateKey, stamp string, body []byte) string {
	msg := make([]byte, 0, len(stamp)+len(body))
	msg = append(append(msg, stamp...), body...)
	return hex.EncodeToString(ed25519.Sign(priv, msg))
}

// wireReply is the part of a reply the generator reads.
type wireReply struct {
	Type int `json:"type"`
	Data struct {
		Content    string `json:"content"`
		Flags      int    `json:"flags"`
		Components []struct {
			Components []struct {
				Label    string `json:"label"`
				CustomID string `json:"custom_id"`
			} `json:"components"`
		} `json:"components"`
	} `json:"data"`
}

// ephemeral reports whether the reply is only shown to the caller: in
// hpkeeper that is a refusal (nothing changed) or an apology.
func (r wireReply) ephemeral() bool { return r.Data.Flags&64 != 0 }

// button returns the custom_id of the button labelled label.
func (r wireReply) button(label string) (string, error) {
	for _, row := range r.Data.Components {
		for _, b := range row.Components {
			if b.Label == label {
				return b.CustomID, nil
			}
		}
	}
	return "", fmt.Errorf("reply has no %q button: %.200q", label, r.Data.Content)
}
