package commands

import (
	"strings"

	"github.com/hpkeeper/hpkeeper/commands/layout"
	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/storage"
)

// How a character reads in a reply: its embed and its gauges, from its
// view (package view), which each audience gets projected for it.

// ViewOf returns c's view under sys, or a plain view when sys has none.
func ViewOf(sys System, c *storage.Character, now int64) (view.Character, error) {
	if v, ok := sys.(Viewer); ok {
		return v.View(c, now)
	}
	return view.Character{}, nil
}

// barLines renders the bars one per line, in code spans so they line up.
func barLines(bars []view.Bar) string {
	w := 0
	for _, b := range bars {
		w = max(w, len([]rune(b.Label)))
	}
	var lines []string
	for _, b := range bars {
		pad := strings.Repeat(" ", w-len([]rune(b.Label)))
		lines = append(lines, "`"+view.Bar{Label: b.Label + pad, Current: b.Current, Max: b.Max}.Text()+"`")
	}
	return strings.Join(lines, "\n")
}

// viewEmbed is the embed of a character, its card: the name, the bars
// (the status line for a system without them: the bars and the fields
// below say all it says, once), the colour of its level, its conditions
// and timers, then the system's fields, and the owner.
func viewEmbed(c *storage.Character, v view.Character, status string, fields []Field) Embed {
	desc := status
	if len(v.Bars) > 0 {
		desc = barLines(v.Bars)
	}
	var fs []Field
	if len(v.Conditions) > 0 {
		fs = append(fs, Field{Name: "Conditions", Value: Escape(strings.Join(v.Conditions, ", "))})
	}
	if len(v.Timers) > 0 {
		fs = append(fs, Field{Name: "Timers", Value: Escape(strings.Join(v.Timers, "\n"))})
	}
	fs = append(fs, fields...)
	return Embed{
		Title:       Escape(c.Name),
		Description: desc,
		Color:       v.Level.Color(),
		Fields:      fs,
		Footer:      "owner: " + c.OwnerName,
	}
}

// NameButton is the disabled button that leads a row of choice buttons with
// the name of its character, when one message offers several characters a
// choice; its label is plain text (not markdown), cut to Discord's 80
// characters. customID must still be unique in the message.
func NameButton(name, customID string) Button {
	return Button{Label: Clip(name, layout.MaxLabel), CustomID: customID, Style: StyleSecondary, Disabled: true}
}

// hiddenEmbed is the embed players see of a hidden character: its name and
// its word w only, in the word's colour.
func hiddenEmbed(c *storage.Character, w view.Word) Embed {
	return Embed{
		Title:       Escape(c.Name),
		Description: "**" + w.Text + "**",
		Color:       w.Color(),
		Footer:      "hidden by the GM",
	}
}
