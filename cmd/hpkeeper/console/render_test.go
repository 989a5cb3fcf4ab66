package console

import (
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
)

func TestPlain(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no markdown", "Lister takes 4 damage: HP 4 → 0", "Lister takes 4 damage: HP 4 → 0"},
		{"escaped name", commands.Escape("*Ace* [the] _Rimmer_ #1 <3 ~x~ a|b > c: d-e"), "*Ace* [the] _Rimmer_ #1 <3 ~x~ a|b > c: d-e"},
		{"bold kept", "**" + commands.Escape("Cat_2") + "** is dying", "**Cat_2** is dying"},
		{"struck dice kept", "3d6dl1 [5, 2, ~~1~~] = 7", "3d6dl1 [5, 2, ~~1~~] = 7"},
		{"mention", commands.Escape("@everyone"), "@everyone"},
		{"backslash", commands.Escape(`C:\temp`), `C:\temp`},
		{"backslash before a letter kept", `a\b`, `a\b`},
		{"trailing backslash", `a\`, `a\`},
		{"code span kept", "use `/roll expr:\"a \\\"b\\\"\"` here \\*", "use `/roll expr:\"a \\\"b\\\"\"` here *"},
		{"escaped backtick is no code span", commands.Escape("`x`") + ` \_`, "`x` _"},
		{"unclosed backtick", "`a \\_ b", "`a _ b"},
		{"code block", "```\n\\_x\n```\\_", "```\n\\_x\n```_"},
		{"mentions", "<@you> asks <@!bob>, <@&gms> and <#general>", "@you asks @bob, @gms and #general"},
		{"not mentions", "a <@ b> <@> <3 <#x", "a <@ b> <@> <3 <#x"},
		{"escaped mention", commands.Escape("<@you>"), "<@you>"},
		{"zero-width space in code", "`@\u200beveryone`", "`@everyone`"},
		{"timestamp", "`#2` <t:1795978860:f> · ann", "`#2` Nov 29 19:01 UTC · ann"},
		{"not timestamps", "<t:> <t:12> <t:x:f> <t:12:ff>", "<t:> <t:12> <t:x:f> <t:12:ff>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := plain(tt.in); got != tt.want {
				t.Errorf("plain(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzPlainEscape(f *testing.F) {
	for _, s := range []string{"Lister", "*Ace*", "`x`", `\`, "@here", "a\\`b``c", "\u200b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.ReplaceAll(s, "\u200b", "")
		if got := plain(commands.Escape(s)); got != want {
			t.Errorf("plain(Escape(%q)) = %q; want %q", s, got, want)
		}
	})
}

func TestRenderMessage(t *testing.T) {
	tests := []struct {
		name string
		resp commands.Response
		for_ string
		want string
	}{
		{"content", commands.Response{Content: "Hello.\n"}, "", "Hello.\n"},
		{"empty", commands.Response{}, "", "(empty reply)\n"},
		{"a ping", commands.Response{Content: "It is **Lister**'s turn (round 2). <@ann>", Mentions: []string{"ann"}}, "",
			"It is **Lister**'s turn (round 2). @ann\n(pings @ann)\n"},
		{"ephemeral", commands.Response{Content: "Only a GM can do that.", Ephemeral: true}, "meghan",
			"(only meghan sees this) Only a GM can do that.\n"},
		{"ephemeral without content", commands.Response{Embeds: []commands.Embed{{Title: "T"}}, Ephemeral: true}, "you",
			"(only you see this)\n| T\n"},
		{"embed", commands.Response{
			Content: "Created.",
			Embeds: []commands.Embed{{
				Title:       commands.Escape("Lister_1"),
				Description: "fighter 1\nsecond line",
				Fields:      []commands.Field{{Name: "HP", Value: "4 / 6", Inline: true}, {Name: "Saves", Value: "death 14\nwands 15"}, {Name: "", Value: "loose"}},
				Footer:      "owner: you",
			}, {Description: "second embed"}},
		}, "", "Created.\n| Lister_1\n| fighter 1\n| second line\n| HP: 4 / 6\n| Saves: death 14\n|   wands 15\n| loose\n| owner: you\n|\n| second embed\n"},
		{"buttons", commands.Response{
			Content: "Lister is at 0 HP.",
			Components: [][]commands.Button{
				{{Label: "Heroic Death"}, {Label: "Stay Up"}, {Label: "Go Down", Disabled: true}},
				{{Label: "Cancel"}},
			},
		}, "", "Lister is at 0 HP.\n[Heroic Death] [Stay Up] [-Go Down-]\n[Cancel]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			renderMessage(&b, &tt.resp, tt.for_)
			if got := b.String(); got != tt.want {
				t.Errorf("renderMessage(%+v) =\n%s\nwant\n%s", tt.resp, got, tt.want)
			}
		})
	}
}

func TestRenderModalAndChoices(t *testing.T) {
	m := &commands.Modal{CustomID: "hd:1", Title: "Heroic Death", Inputs: []commands.TextInput{{CustomID: "action", Label: "Action"}}}
	if got, want := renderModal(m), "(modal \"Heroic Death\": Action — answer with: submit <text>)\n"; got != want {
		t.Errorf("renderModal(%+v) = %q; want %q", m, got, want)
	}
	ch := []commands.Choice{{Name: "Lister", Value: "Lister"}, {Name: commands.Escape("Cat_2"), Value: "7"}}
	if got, want := renderChoices(ch), "suggestions:\n  Lister\n  Cat_2 (7)\n"; got != want {
		t.Errorf("renderChoices(%v) = %q; want %q", ch, got, want)
	}
	if got, want := renderChoices(nil), "(no suggestions)\n"; got != want {
		t.Errorf("renderChoices(nil) = %q; want %q", got, want)
	}
}
