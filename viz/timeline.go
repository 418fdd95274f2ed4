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
	"github.com/go-echarts/go-echarts/v2/types"
)

// Span is one bar of a timeline: a call that ran from Start to End on
// one lane.
type Span struct {
	Name       string  // drawn inside the bar when it fits
	Kind       string  // what it is: an op kind ("conv", …), "block", or a kind of the caller's
	Color      string  // the bar's CSS colour; "" for KindColor(Kind)
	Lane       int     // index in Timeline.Lanes
	Start, End float64 // microseconds from the timeline's origin
	Tip        string  // shown on hover; plain text, lines split by "\n"
}

// Timeline is a flame chart: lanes top to bottom, each a row of spans,
// all on one time axis. A call nested in another sits on the lane below
// it, so that a block's call is a bar over the bars of its ops.
type Timeline struct {
	Title string
	Lanes []string // the lanes' names, drawn left of them
	Spans []Span
}

// The timeline drawings' frame, in pixels.
const (
	tlLaneH   = 26.0 // a lane's height
	tlBarH    = 20.0 // a bar's height in its lane
	tlAxisH   = 34.0 // the time axis under the lanes
	tlCharW   = 6.6  // the width of a character of 11px text, about
	tlMinBarW = 1.0  // a bar shorter than this is drawn this wide
)

// color is the span's fill colour.
func (s Span) color() string {
	if s.Color != "" {
		return s.Color
	}
	return KindColor(s.Kind)
}

// kinds returns the kinds of t's spans, in legend order, with the colour
// of each (its first span's).
func (t Timeline) kinds() (kinds, colors []string) {
	present := map[string]bool{}
	for _, s := range t.Spans {
		present[s.Kind] = true
	}
	color := map[string]string{}
	for i := len(t.Spans) - 1; i >= 0; i-- {
		color[t.Spans[i].Kind] = t.Spans[i].color()
	}
	add := func(k string) {
		if present[k] {
			kinds, colors = append(kinds, k), append(colors, color[k])
			delete(present, k)
		}
	}
	for _, k := range Kinds() {
		add(k)
	}
	for _, s := range t.Spans { // kinds Kinds does not list, in order of appearance
		add(s.Kind)
	}
	return kinds, colors
}

// end is the latest end of t's spans, at least 1.
func (t Timeline) end() float64 {
	e := 1.0
	for _, s := range t.Spans {
		if finite(s.End) {
			e = math.Max(e, s.End)
		}
	}
	return e
}

// TimelineSVG draws a timeline as a standalone SVG, width pixels wide
// (900 when width <= 0): the title, a legend of the kinds drawn, the
// lanes' names at the left, one bar per span coloured by kind with its
// name inside when it fits (and its tip as the bar's SVG title, which
// browsers show on hover), and a time axis in microseconds at the
// bottom. The same timeline gives the same bytes.
func TimelineSVG(t Timeline, width int) []byte {
	if width <= 0 {
		width = 900
	}
	W := float64(width)
	esc := html.EscapeString
	var b bytes.Buffer

	labelW := 40.0
	for _, l := range t.Lanes {
		labelW = math.Max(labelW, tlCharW*float64(len([]rune(l)))+16)
	}
	left, right := labelW, W-20
	if right-left < 100 {
		right = left + 100
		W = right + 20
	}

	// The legend, wrapped to the width, under the title.
	top := 10.0
	var head bytes.Buffer
	if t.Title != "" {
		fmt.Fprintf(&head, `<text class="title" x="%s" y="22" text-anchor="middle" font-size="15" font-weight="bold" fill="#222">%s</text>`+"\n", coord(W/2), esc(t.Title))
		top = 34
	}
	if ks, colors := t.kinds(); len(ks) > 0 {
		head.WriteString(`<g class="legend">` + "\n")
		x, y := left, top+4
		for i, k := range ks {
			w := 20 + tlCharW*float64(len(k)) + 14
			if x+w > W-10 && x > left {
				x, y = left, y+legendRH
			}
			fmt.Fprintf(&head, `<rect x="%s" y="%s" width="14" height="12" fill="%s" stroke="#5f6b76" stroke-width="0.5"/><text x="%s" y="%s" fill="#333">%s</text>`+"\n",
				coord(x), coord(y), colors[i], coord(x+18), coord(y+10), esc(k))
			x += w
		}
		head.WriteString("</g>\n")
		top = y + legendRH + 6
	}
	H := top + float64(len(t.Lanes))*tlLaneH + tlAxisH

	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s" font-size="11">`+"\n",
		coord(W), coord(H), coord(W), coord(H), fontFam)
	fmt.Fprintf(&b, `<rect width="%s" height="%s" fill="#ffffff"/>`+"\n", coord(W), coord(H))
	b.Write(head.Bytes())

	// Lanes: a light band every other lane, the name at the left.
	bottom := top + float64(len(t.Lanes))*tlLaneH
	b.WriteString(`<g class="lanes">` + "\n")
	for i, l := range t.Lanes {
		y := top + float64(i)*tlLaneH
		if i%2 == 0 {
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="#f4f6f8"/>`+"\n", coord(left), coord(y), coord(right-left), coord(tlLaneH))
		}
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" fill="#333">%s</text>`+"\n", coord(left-8), coord(y+tlLaneH/2+4), esc(l))
	}
	b.WriteString("</g>\n")

	// The time axis.
	ticks := niceTicks(0, t.end(), int(math.Max(2, (right-left)/90)))
	span := ticks[len(ticks)-1]
	px := func(v float64) float64 { return left + v/span*(right-left) }
	b.WriteString(`<g class="axis" fill="#444">` + "\n")
	for _, v := range ticks {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e4e4e4"/>`, coord(px(v)), coord(top), coord(px(v)), coord(bottom))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", coord(px(v)), coord(bottom+15), tickLabel(v, ticks))
	}
	fmt.Fprintf(&b, `<path d="M%s %sH%s" stroke="#555"/>`+"\n", coord(left), coord(bottom), coord(right))
	fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end">µs</text>`+"\n", coord(right), coord(bottom+29))
	b.WriteString("</g>\n")

	// The bars.
	b.WriteString(`<g class="spans" stroke="#5f6b76" stroke-width="0.5">` + "\n")
	for _, s := range t.Spans {
		if s.Lane < 0 || s.Lane >= len(t.Lanes) || !finite(s.Start) || !finite(s.End) {
			continue
		}
		x := px(s.Start)
		w := math.Max(px(s.End)-x, tlMinBarW)
		y := top + float64(s.Lane)*tlLaneH + (tlLaneH-tlBarH)/2
		fill := s.color()
		fmt.Fprintf(&b, `<g class="span"><title>%s</title><rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`,
			esc(s.Tip), coord(x), coord(y), coord(w), coord(tlBarH), fill)
		if label := fitLabel(s.Name, w-6); label != "" {
			fmt.Fprintf(&b, `<text x="%s" y="%s" stroke="none" fill="%s">%s</text>`, coord(x+3), coord(y+tlBarH/2+4), textColor(fill), esc(label))
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</g>\n</svg>\n")
	return b.Bytes()
}

// fitLabel returns name as it fits in w pixels of 11px text: whole, cut
// with "…", or "" when not even a few characters fit.
func fitLabel(name string, w float64) string {
	r := []rune(name)
	n := int(w / tlCharW)
	switch {
	case n >= len(r):
		return name
	case n < 4:
		return ""
	default:
		return string(r[:n-1]) + "…"
	}
}

// TimelineHTML writes a timeline as an interactive echarts page (through
// go-echarts): the bars of TimelineSVG, drawn by a custom series, one
// series per kind so that the legend hides and shows a kind; hovering a
// bar shows its tip; the mouse wheel and the slider below zoom the time
// axis, and a bar's name shows inside it when it fits. The page loads
// echarts.min.js from o.AssetsHost. The same input gives the same bytes.
func TimelineHTML(t Timeline, o HTMLOptions) ([]byte, error) {
	if o.Title == "" {
		o.Title = t.Title
	}
	if o.Title == "" {
		o.Title = "hybridgo timeline"
	}
	labelW := 40
	for _, l := range t.Lanes {
		labelW = max(labelW, int(tlCharW*float64(len([]rune(l))))+16)
	}
	kinds, colors := t.kinds()
	height := 110 + int(float64(len(t.Lanes))*tlLaneH*1.4) + 60
	c := charts.NewCustom()
	c.SetGlobalOptions(
		charts.WithInitializationOpts(o.initialization(o.Title, 900, height)),
		charts.WithTitleOpts(opts.Title{Title: t.Title, Subtitle: "scroll or drag the slider to zoom · click a kind to hide it · hover for details", Left: "center"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "52", Left: "center", Data: kinds}),
		charts.WithTooltipOpts(opts.Tooltip{
			Show:      opts.Bool(true),
			Trigger:   "item",
			Formatter: types.FuncStr(jsFunc("function (p) { return (p.data && p.data.tip) || ''; }")),
		}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "µs", Min: 0}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: t.Lanes, Inverse: opts.Bool(true)}),
		charts.WithGridOpts(opts.Grid{Top: "90", Left: strconv.Itoa(labelW), Right: "50", Bottom: "60"}),
		charts.WithDataZoomOpts(
			opts.DataZoom{Type: "slider", XAxisIndex: []int{0}, FilterMode: "weakFilter"},
			opts.DataZoom{Type: "inside", XAxisIndex: []int{0}, FilterMode: "weakFilter"},
		),
		charts.WithToolboxOpts(opts.Toolbox{
			Show:  opts.Bool(true),
			Right: "16",
			Feature: &opts.ToolBoxFeature{
				Restore:     &opts.ToolBoxFeatureRestore{Show: opts.Bool(true), Title: "reset zoom"},
				SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Title: "save as PNG", Name: "timeline"},
			},
		}),
		charts.WithAnimation(false),
	)
	o.useAssets(&c.Assets)
	for i, k := range kinds {
		var data []spanItem
		for _, s := range t.Spans {
			if s.Kind != k || s.Lane < 0 || s.Lane >= len(t.Lanes) || !finite(s.Start) || !finite(s.End) {
				continue
			}
			data = append(data, spanItem{Value: [4]any{s.Lane, s.Start, s.End, s.Name}, Tip: strings.ReplaceAll(html.EscapeString(s.Tip), "\n", "<br>")})
		}
		fill := colors[i]
		c.MultiSeries = append(c.MultiSeries, charts.SingleSeries{
			Name:       k,
			Type:       types.ChartCustom,
			Data:       data,
			RenderItem: types.FuncStr(jsFunc(renderSpan(textColor(fill)))),
			ItemStyle:  &opts.ItemStyle{Color: fill, BorderColor: "#5f6b76", BorderWidth: 0.5},
			Encode:     &opts.Encode{X: []int{1, 2}, Y: 0},
		})
	}
	return renderChart(c, o)
}

// spanItem is one data item of a timeline's custom series: lane, start,
// end and label, and the hover text as HTML.
type spanItem struct {
	Value [4]any `json:"value"`
	Tip   string `json:"tip"`
}

// renderSpan is the custom series' renderItem: a bar from start to end
// on its lane, clipped to the plot, with its label inside, cut to fit.
// go-echarts writes the code inside a JSON string and keeps its escapes,
// so it has no double quotes and no backslashes.
func renderSpan(textFill string) string {
	return `function (params, api) {
  var lane = api.value(0), a = api.coord([api.value(1), lane]), b = api.coord([api.value(2), lane]);
  var h = api.size([0, 1])[1] * 0.75, cs = params.coordSys;
  var x0 = Math.max(a[0], cs.x), x1 = Math.min(Math.max(b[0], a[0] + 1), cs.x + cs.width);
  if (x1 <= x0) { return null; }
  return {
    type: 'rect',
    shape: { x: x0, y: a[1] - h / 2, width: x1 - x0, height: h },
    style: api.style(),
    textContent: { style: { text: x1 - x0 > 30 ? String(api.value(3)) : '', fill: '` + textFill + `', fontSize: 11, width: x1 - x0 - 6, overflow: 'truncate', ellipsis: '…' } },
    textConfig: { position: 'insideLeft' }
  };
}`
}
