package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// readme reads the repository's README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadmeCitesOnlyWhatACloneHas: every relative link of README.md and
// CHANGELOG.md names a file of the repository, every #anchor a heading,
// and neither cites the specification kept outside it.
func TestReadmeCitesOnlyWhatACloneHas(t *testing.T) {
	for _, name := range []string{"README.md", "CHANGELOG.md"} {
		b, err := os.ReadFile(filepath.Join("../..", name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, spec := range []string{"RULES.md", "COMMANDS.md", "shared/"} {
			if strings.Contains(text, spec) {
				t.Errorf("%s cites %s, which a clone does not have", name, spec)
			}
		}
		anchors := map[string]bool{}
		for _, h := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(text, -1) {
			anchors[slug(h[1])] = true
		}
		for _, m := range regexp.MustCompile(`\]\(([^)\s]+)\)`).FindAllStringSubmatch(text, -1) {
			target := m[1]
			switch {
			case strings.HasPrefix(target, "http://"), strings.HasPrefix(target, "https://"):
			case strings.HasPrefix(target, "#"):
				if !anchors[target[1:]] {
					t.Errorf("%s links to %s, which no heading makes", name, target)
				}
			default:
				if _, err := os.Stat(filepath.Join("../..", target)); err != nil {
					t.Errorf("%s links to %s: %v", name, target, err)
				}
			}
		}
	}
}

// slug is GitHub's anchor of a heading: lower case, spaces as hyphens,
// punctuation other than hyphens dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestReadmeTranscriptsMatchTheGoldens: each console excerpt the README
// introduces as from a testdata/NAME.golden transcript is in that
// transcript: its lines in order, parts separated by "…" lines, the lines
// an excerpt leaves out (character cards) skipped.
func TestReadmeTranscriptsMatchTheGoldens(t *testing.T) {
	text := readme(t)
	checked := 0
	for _, loc := range regexp.MustCompile("(?s)```text\n(.*?)```").FindAllStringSubmatchIndex(text, -1) {
		before, block := text[max(0, loc[0]-400):loc[0]], text[loc[2]:loc[3]]
		m := regexp.MustCompile(`testdata/([a-z-]+)\.golden`).FindAllStringSubmatch(before, -1)
		if m == nil || !strings.HasPrefix(block, "> ") {
			continue
		}
		name := m[len(m)-1][1]
		golden, err := os.ReadFile(filepath.Join("console", "testdata", name+".golden"))
		if err != nil {
			t.Errorf("README cites %s.golden: %v", name, err)
			continue
		}
		lines := strings.Split(string(golden), "\n")
		for _, part := range strings.Split(block, "\n…\n") {
			at := 0
			for _, want := range strings.Split(strings.TrimRight(part, "\n"), "\n") {
				for at < len(lines) && lines[at] != want {
					at++
				}
				if at == len(lines) {
					t.Errorf("README's excerpt of %s.golden has %q, which the transcript does not have there", name, want)
					break
				}
				at++
			}
		}
		checked++
	}
	if checked < 4 {
		t.Errorf("checked %d excerpts; want the README's transcripts (platform, hp-mp-wp, tracker, init, table-tools)", checked)
	}
}

// TestReadmeInvitePermissions: the invite URL asks for exactly View
// Channel, Send Messages, Embed Links and Attach Files.
func TestReadmeInvitePermissions(t *testing.T) {
	m := regexp.MustCompile(`scope=bot\+applications\.commands&permissions=(\d+)`).FindStringSubmatch(readme(t))
	if m == nil {
		t.Fatal("README has no invite URL with the bot and applications.commands scopes")
	}
	want := int64(discordgo.PermissionViewChannel | discordgo.PermissionSendMessages | discordgo.PermissionEmbedLinks | discordgo.PermissionAttachFiles)
	if got, _ := strconv.ParseInt(m[1], 10, 64); got != want {
		t.Errorf("invite permissions=%s; want %d (View Channel, Send Messages, Embed Links, Attach Files)", m[1], want)
	}
}

// TestReadmeTeachesHidingInOneStep: README teaches a hidden NPC created
// hidden, in one step answered to the GM alone, never created and then
// hidden, which posts its whole card first (issue 24).
func TestReadmeTeachesHidingInOneStep(t *testing.T) {
	text := strings.Join(strings.Fields(readme(t)), " ")
	const want = "A GM creates a hidden NPC in one step, `/char create name:Goblin stats:\"class=fighter hp=7 hidden=true\"`, answered to that GM alone"
	if !strings.Contains(text, want) {
		t.Errorf("README does not teach hiding in one step: no %q", want)
	}
	if m := regexp.MustCompile("A GM hides an NPC with `/char set[^`]*hidden=true`").FindString(text); m != "" {
		t.Errorf("README teaches hiding an NPC after creating it: %q", m)
	}
}
