package commandstest

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/odds"
)

// WantIn fails t unless got contains every one of wants; what names got in
// the message.
func WantIn(t testing.TB, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s = %q; want it to contain %q", what, got, w)
		}
	}
}

// CheckPNG fails t unless f is a .png image/png file holding a
// odds.ChartWidth × odds.ChartHeight PNG.
func CheckPNG(t testing.TB, f commands.File) {
	t.Helper()
	if f.ContentType != "image/png" || !strings.HasSuffix(f.Name, ".png") {
		t.Fatalf("file %q is %q; want a .png image/png", f.Name, f.ContentType)
	}
	img, err := png.Decode(bytes.NewReader(f.Data))
	if err != nil {
		t.Fatalf("decode %s: %v", f.Name, err)
	}
	if b := img.Bounds(); b.Dx() != odds.ChartWidth || b.Dy() != odds.ChartHeight {
		t.Fatalf("%s is %dx%d; want %dx%d", f.Name, b.Dx(), b.Dy(), odds.ChartWidth, odds.ChartHeight)
	}
}
