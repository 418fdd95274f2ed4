package viz

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Series is one curve of a line chart: Y[i] at X[i] (a training loss by
// epoch, say). Points where X or Y is NaN or infinite are gaps; extra
// values in the longer of X and Y are ignored.
type Series struct {
	Name string
	X    []float64
	Y    []float64
}

// seriesColors are the curves' colours, in order (then again).
var seriesColors = []string{
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
}

func seriesColor(i int) string { return seriesColors[i%len(seriesColors)] }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// points returns the series' (x, y) pairs, up to the shorter slice.
func (s Series) points() int { return min(len(s.X), len(s.Y)) }

// LineChartHTML writes training curves as an interactive echarts page
// (through go-echarts): one line per series on numeric axes, a legend that
// hides and shows series, a tooltip with every series' value at the
// pointer, and zoom by the toolbox's box or the slider below. The same
// input gives the same bytes.
func LineChartHTML(title string, series []Series, o HTMLOptions) ([]byte, error) {
	if o.Title == "" {
		o.Title = title
	}
	if o.Title == "" {
		o.Title = "hybridgo chart"
	}
	c := charts.NewLine()
	names := make([]string, len(series))
	colors := make([]string, len(series))
	for i, s := range series {
		names[i] = s.Name
		colors[i] = seriesColor(i)
	}
	c.SetGlobalOptions(
		charts.WithInitializationOpts(o.initialization(o.Title, 900, 500)),
		charts.WithTitleOpts(opts.Title{Title: title, Left: "center"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "30", Left: "center", Data: names}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Scale: opts.Bool(true)}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Scale: opts.Bool(true)}),
		charts.WithGridOpts(opts.Grid{Top: "70", Left: "60", Right: "40", Bottom: "70"}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider", XAxisIndex: []int{0}}, opts.DataZoom{Type: "inside", XAxisIndex: []int{0}}),
		charts.WithToolboxOpts(opts.Toolbox{
			Show:  opts.Bool(true),
			Right: "16",
			Feature: &opts.ToolBoxFeature{
				DataZoom:    &opts.ToolBoxFeatureDataZoom{Show: opts.Bool(true)},
				Restore:     &opts.ToolBoxFeatureRestore{Show: opts.Bool(true), Title: "reset zoom"},
				SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Title: "save as PNG", Name: "chart"},
			},
		}),
		charts.WithColorsOpts(colors),
		charts.WithAnimation(false),
	)
	o.useAssets(&c.Assets)
	for _, s := range series {
		data := make([]opts.LineData, 0, s.points())
		for i := 0; i < s.points(); i++ {
			x, y := s.X[i], s.Y[i]
			if !finite(x) {
				continue
			}
			var v any = y
			if !finite(y) {
				v = "-" // echarts' missing value: a gap in the line
			}
			data = append(data, opts.LineData{Value: []any{x, v}})
		}
		c.AddSeries(s.Name, data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(s.points() <= 60)}))
	}
	return renderChart(c, o)
}

// LineChartSVG draws training curves as a standalone SVG, in pure Go: axes
// with ticks at round numbers and light grid lines, one coloured path per
// series (broken at NaNs; with point markers when there are few points),
// and a legend under the title. width and height default to 640x400.
func LineChartSVG(title string, series []Series, width, height int) []byte {
	if width <= 0 {
		width = 640
	}
	if height <= 0 {
		height = 400
	}
	W, H := float64(width), float64(height)
	var b bytes.Buffer
	esc := html.EscapeString
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)

	top := 12.0
	if title != "" {
		fmt.Fprintf(&b, `<text class="title" x="%s" y="22" text-anchor="middle" font-size="15" font-weight="bold" fill="#222">%s</text>`+"\n", coord(W/2), esc(title))
		top = 32
	}

	// The legend: rows of swatch + name, wrapped to the width.
	const legendRow = 18.0
	x, y := 60.0, top+10
	var legend bytes.Buffer
	for i, s := range series {
		w := 26 + 7*float64(len([]rune(s.Name))) + 16
		if x+w > W-10 && x > 60 {
			x, y = 60, y+legendRow
		}
		fmt.Fprintf(&legend, `<g class="legend-item"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"/><text x="%s" y="%s" fill="#333">%s</text></g>`+"\n",
			coord(x), coord(y), coord(x+20), coord(y), seriesColor(i), coord(x+26), coord(y+4), esc(s.Name))
		x += w
	}
	if len(series) > 0 {
		b.WriteString(`<g class="legend">` + "\n")
		b.Write(legend.Bytes())
		b.WriteString("</g>\n")
		top = y + 16
	}

	// The plot area and the data's range.
	left, right, bottom := 64.0, W-20, H-36
	if bottom-top < 20 {
		top = bottom - 20
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for i := 0; i < s.points(); i++ {
			if finite(s.X[i]) && finite(s.Y[i]) {
				xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
				ymin, ymax = math.Min(ymin, s.Y[i]), math.Max(ymax, s.Y[i])
			}
		}
	}
	if xmin > xmax { // no points
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	xt := niceTicks(xmin, xmax, int(math.Max(2, (right-left)/80)))
	yt := niceTicks(ymin, ymax, int(math.Max(2, (bottom-top)/50)))
	x0, x1 := xt[0], xt[len(xt)-1]
	y0, y1 := yt[0], yt[len(yt)-1]
	px := func(v float64) float64 { return left + (v-x0)/(x1-x0)*(right-left) }
	py := func(v float64) float64 { return bottom - (v-y0)/(y1-y0)*(bottom-top) }

	// Grid, axes and tick labels.
	b.WriteString(`<g class="axes" stroke="#e4e4e4" stroke-width="1">` + "\n")
	for _, t := range xt {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", coord(px(t)), coord(top), coord(px(t)), coord(bottom))
	}
	for _, t := range yt {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", coord(left), coord(py(t)), coord(right), coord(py(t)))
	}
	fmt.Fprintf(&b, `<path class="axis" d="M%s %sV%sH%s" fill="none" stroke="#555"/>`+"\n", coord(left), coord(top), coord(bottom), coord(right))
	b.WriteString("</g>\n")
	b.WriteString(`<g class="ticks" fill="#444" font-size="11">` + "\n")
	for _, t := range xt {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", coord(px(t)), coord(bottom+16), tickLabel(t, xt))
	}
	for _, t := range yt {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", coord(left-6), coord(py(t)+4), tickLabel(t, yt))
	}
	b.WriteString("</g>\n")

	// The curves.
	for i, s := range series {
		color := seriesColor(i)
		var d strings.Builder
		pen := false
		n := 0
		for j := 0; j < s.points(); j++ {
			if !finite(s.X[j]) || !finite(s.Y[j]) {
				pen = false
				continue
			}
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%s %s", cmd, coord(px(s.X[j])), coord(py(s.Y[j])))
			pen = true
			n++
		}
		fmt.Fprintf(&b, `<path class="series" data-series="%s" d="%s" fill="none" stroke="%s" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"/>`+"\n", esc(s.Name), d.String(), color)
		if n > 0 && n <= 40 {
			fmt.Fprintf(&b, `<g class="markers" fill="%s">`, color)
			for j := 0; j < s.points(); j++ {
				if finite(s.X[j]) && finite(s.Y[j]) {
					fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="2.5"/>`, coord(px(s.X[j])), coord(py(s.Y[j])))
				}
			}
			b.WriteString("</g>\n")
		}
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// niceTicks returns about n+1 ticks at round numbers (1, 2 or 5 times a
// power of ten) covering [lo, hi]; the first and last bound the axis.
func niceTicks(lo, hi float64, n int) []float64 {
	if n < 1 {
		n = 1
	}
	if hi == lo {
		d := math.Abs(lo) * 0.1
		if d == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	raw := (hi - lo) / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * p
	for _, m := range []float64{1, 2, 5} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	start := math.Floor(lo/step) * step
	end := math.Ceil(hi/step) * step
	var ticks []float64
	for i := 0; ; i++ {
		t := start + float64(i)*step
		if t > end+step/2 {
			break
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// tickLabel writes a tick with as many decimals as its axis' step needs.
func tickLabel(t float64, ticks []float64) string {
	step := 1.0
	if len(ticks) > 1 {
		step = ticks[1] - ticks[0]
	}
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	if math.Abs(t) < step/1e6 {
		t = 0
	}
	return strconv.FormatFloat(t, 'f', dec, 64)
}

// coord writes an SVG coordinate with at most two decimals.
func coord(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// sparkBars are the eight heights of a sparkline, lowest first.
var sparkBars = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws ys as one line of block characters, width runes wide
// (len(ys) when width <= 0), for a terminal: the lowest value is ▁ and the
// highest █. Longer series are averaged down to the width, shorter ones
// interpolated up; NaN and infinite values (and columns with nothing else)
// are spaces. A constant series is a row of ▄.
func Sparkline(ys []float64, width int) string {
	if width <= 0 {
		width = len(ys)
	}
	if len(ys) == 0 || width == 0 {
		return ""
	}
	cols := resample(ys, width)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range cols {
		if finite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	var b strings.Builder
	for _, v := range cols {
		switch {
		case !finite(v):
			b.WriteRune(' ')
		case hi == lo:
			b.WriteRune(sparkBars[3])
		default:
			i := int(math.Round((v - lo) / (hi - lo) * float64(len(sparkBars)-1)))
			b.WriteRune(sparkBars[i])
		}
	}
	return b.String()
}

// resample returns width values standing for ys: bucket means of the
// finite values when shrinking (NaN for a bucket without any), linear
// interpolation when stretching (the nearer value, finite or not, next to a
// value that is not finite).
func resample(ys []float64, width int) []float64 {
	n := len(ys)
	out := make([]float64, width)
	if n >= width {
		for j := range out {
			lo, hi := j*n/width, (j+1)*n/width
			sum, k := 0.0, 0
			for _, v := range ys[lo:hi] {
				if finite(v) {
					sum += v
					k++
				}
			}
			out[j] = math.NaN()
			if k > 0 {
				out[j] = sum / float64(k)
			}
		}
		return out
	}
	for j := range out {
		if n == 1 {
			out[j] = ys[0]
			continue
		}
		t := float64(j) * float64(n-1) / float64(width-1)
		i := int(math.Floor(t))
		if i >= n-1 {
			out[j] = ys[n-1]
			continue
		}
		f := t - float64(i)
		a, c := ys[i], ys[i+1]
		switch {
		case finite(a) && finite(c):
			out[j] = a + f*(c-a)
		case f < 0.5:
			out[j] = a
		default:
			out[j] = c
		}
	}
	return out
}
