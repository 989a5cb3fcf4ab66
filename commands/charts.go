package commands

import (
	"math/big"
)

// Charts are data in the kernel: a system says what its odds are (Charter,
// or a chart in a reply such as hit-protection's injury odds at 0 HP) as a
// Chart, and the odds feature (commands/odds), which alone imports a
// plotting library, draws it as a PNG once the handler has answered.

// ChartFile returns the PNG file named name (e.g. "injury-odds.png") that
// is drawn from c once the handler has answered, so that no write waits for
// the drawing. A file nobody draws (no feature draws charts, or the drawing
// failed) is left out of the reply, whose text holds the numbers too.
func ChartFile(name string, c Chart) File {
	return File{Name: name, ContentType: "image/png", Chart: &c}
}

// leaveOutUndrawn drops from resp's files the charts that were not drawn
// (ChartFile).
func leaveOutUndrawn(resp *Response) {
	files := resp.Files[:0]
	for _, f := range resp.Files {
		if f.Chart == nil || f.Data != nil {
			files = append(files, f)
		}
	}
	resp.Files = files
}

// Percent converts an exact chance (0 to 1) to a percentage (0 to 100),
// the unit of chart values.
func Percent(p *big.Rat) float64 {
	f, _ := new(big.Rat).Mul(p, big.NewRat(100, 1)).Float64()
	return f
}
