package odds

import (
	"bytes"
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/hpkeeper/hpkeeper/commands"
)

// Chart sizes in pixels: every chart hpkeeper draws is this big.
const (
	ChartWidth  = 800
	ChartHeight = 450
	chartDPI    = 96
)

// chartColors are the series' colours, in order (Discord's palette).
var chartColors = []color.RGBA{
	{R: 0x58, G: 0x65, B: 0xF2, A: 0xFF}, // blurple
	{R: 0x3B, G: 0xA5, B: 0x5C, A: 0xFF}, // green
	{R: 0xED, G: 0x42, B: 0x45, A: 0xFF}, // red
	{R: 0xFE, G: 0xE7, B: 0x5C, A: 0xFF}, // yellow
}

// BarChartPNG draws c (one group of bars per category, one bar per series,
// each series with one value per category) as a ChartWidth × ChartHeight
// PNG. The fonts are gonum/plot's embedded ones: nothing is fetched. A
// series of the wrong length is an error.
func BarChartPNG(c commands.Chart) ([]byte, error) {
	title, categories, series := c.Title, c.Categories, c.Series
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "chance (%)"
	p.Y.Min = 0
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	n := len(series)
	width := vg.Points(float64(ChartWidth-120) / float64(max(1, len(categories))) / float64(n+1) * 72 / chartDPI)
	for i, s := range series {
		if len(s.Values) != len(categories) {
			return nil, fmt.Errorf("chart series %q has %d values for %d categories", s.Name, len(s.Values), len(categories))
		}
		bars, err := plotter.NewBarChart(plotter.Values(s.Values), width)
		if err != nil {
			return nil, fmt.Errorf("chart: %w", err)
		}
		bars.LineStyle.Width = vg.Length(0)
		bars.Color = chartColors[i%len(chartColors)]
		bars.Offset = vg.Length(float64(i)-float64(n-1)/2) * width
		p.Add(bars)
		if n > 1 {
			p.Legend.Add(s.Name, bars)
		}
	}
	top := 0.0
	for _, s := range series {
		for _, v := range s.Values {
			top = max(top, v)
		}
	}
	p.Y.Max = top*1.2 + 1 // room for the legend above the bars
	p.NominalX(categories...)
	cv := vgimg.NewWith(
		vgimg.UseWH(vg.Length(ChartWidth)*vg.Inch/chartDPI, vg.Length(ChartHeight)*vg.Inch/chartDPI),
		vgimg.UseDPI(chartDPI),
		vgimg.UseBackgroundColor(color.White),
	)
	pad := vg.Length(12) * vg.Inch / chartDPI
	p.Draw(draw.Crop(draw.New(cv), pad, -pad, pad, -pad))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: %w", err)
	}
	return buf.Bytes(), nil
}
