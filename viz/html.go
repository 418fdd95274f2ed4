package viz

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"

	"github.com/hybridgo/hybridgo/graph"
)

// The graph page's frame around the layout, in pixels: room for the
// heading and the legend above, a margin below and at the sides.
const (
	htmlTop    = 96
	htmlBottom = 24
	htmlSide   = 24
	htmlMinW   = 720

	htmlLineHeight = 14 // of the labels in op boxes (11px text)
)

// DrawHTML lays out g and writes it as an interactive page (see HTML).
func DrawHTML(g *graph.Graph, o Options, h HTMLOptions) ([]byte, error) {
	l, err := LayoutGraph(g, o)
	if err != nil {
		return nil, err
	}
	return HTML(l, h)
}

// HTML writes a layout as a self-contained interactive page drawn by
// echarts (through go-echarts): the boxes sit where the layout put them,
// coloured by op kind; the legend lists the kinds present and clicking one
// hides or shows its nodes; the mouse wheel zooms and dragging pans; a
// node's tooltip lists its op, shape, dtype, annotations and every
// attribute. The page loads echarts.min.js from o.AssetsHost. The same
// layout and options give the same bytes.
func HTML(l *Layout, o HTMLOptions) ([]byte, error) {
	if l == nil {
		return nil, fmt.Errorf("viz: HTML of a nil layout")
	}
	title := o.Title
	if title == "" {
		title = "hybridgo graph"
	}

	// Categories: the kinds present, in legend order.
	kindIndex := map[string]int{}
	var kinds []string
	present := map[string]bool{}
	for _, n := range l.Nodes {
		present[n.Kind] = true
	}
	for _, k := range Kinds() {
		if present[k] {
			kindIndex[k] = len(kinds)
			kinds = append(kinds, k)
		}
	}
	for _, n := range l.Nodes { // kinds Kinds does not list, in order of appearance
		if _, ok := kindIndex[n.Kind]; !ok {
			kindIndex[n.Kind] = len(kinds)
			kinds = append(kinds, n.Kind)
		}
	}
	categories := make([]*opts.GraphCategory, len(kinds))
	for i, k := range kinds {
		fill := KindColor(k)
		if fill == "" {
			fill = "#cccccc"
		}
		categories[i] = &opts.GraphCategory{
			Name:      k,
			ItemStyle: &opts.ItemStyle{Color: fill, BorderColor: "#5f6b76", BorderWidth: 1},
			Label:     &opts.Label{Color: textColor(fill)},
		}
	}

	nodes, links := graphData(l, kindIndex)

	width := int(math.Ceil(l.Width)) + 2*htmlSide
	if width < htmlMinW {
		width = htmlMinW
	}
	height := int(math.Ceil(l.Height)) + htmlTop + htmlBottom
	// Heading and legend centred, or at the left of a chart wider than
	// most windows (which scroll to see the rest).
	align := "center"
	if width > 1200 {
		align = strconv.Itoa(htmlSide)
	}

	g := charts.NewGraph()
	g.SetGlobalOptions(
		charts.WithInitializationOpts(o.initialization(title, width, height)),
		charts.WithTitleOpts(opts.Title{
			Title:    title,
			Subtitle: "scroll to zoom · drag to pan · click a kind to hide it · hover for details",
			Left:     align,
		}),
		charts.WithLegendOpts(opts.Legend{
			Show: opts.Bool(true),
			Type: "scroll",
			Top:  "52",
			Left: align,
			Data: kinds,
		}),
		charts.WithTooltipOpts(opts.Tooltip{
			Show:      opts.Bool(true),
			Trigger:   "item",
			Formatter: types.FuncStr(jsFunc("function (p) { return (p.data && p.data.tip) || ''; }")),
		}),
		charts.WithToolboxOpts(opts.Toolbox{
			Show:  opts.Bool(true),
			Right: "16",
			Feature: &opts.ToolBoxFeature{
				Restore:     &opts.ToolBoxFeatureRestore{Show: opts.Bool(true), Title: "reset zoom"},
				SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Title: "save as PNG", Name: "graph"},
			},
		}),
		charts.WithAnimation(false),
	)
	o.useAssets(&g.Assets)
	g.Accept(graphVisitor{})
	g.MultiSeries = append(g.MultiSeries, charts.SingleSeries{
		Name:       title,
		Type:       types.ChartGraph,
		Layout:     "none",
		Roam:       opts.Bool(true),
		Categories: categories,
		Data:       nodes,
		Links:      links,
		EdgeSymbol: []string{"none", "arrow"},
		// The arrow's length; its start is 0 because edges start at a port.
		EdgeSymbolSize: []int{0, 8},
		// Set top and bottom only: the view keeps the layout's aspect
		// ratio and, with the anchors below, draws it at scale 1.
		Top:    strconv.Itoa(htmlTop),
		Bottom: strconv.Itoa(htmlBottom),
		Label: &opts.Label{
			Show:       opts.Bool(true),
			Position:   "inside",
			FontSize:   11,
			LineHeight: htmlLineHeight,
			Formatter:  jsFunc("function (p) { return p.data.text || ''; }"),
		},
		// WithGraphChartOpts ignores a GraphChart's LineStyle; the
		// series' own LineStyle styles the edges.
		LineStyle: &opts.LineStyle{Color: "#6b7785", Width: 1.3, Opacity: opts.Float(0.9)},
	})
	return renderChart(g, o)
}

// graphVisitor adds to the graph series the echarts options go-echarts has
// no field for.
type graphVisitor struct {
	charts.BaseConfigurationVisitor
}

// graphSeries is a go-echarts series plus those options.
type graphSeries struct {
	charts.SingleSeries
	// NodeScaleRatio 1 makes boxes scale with the zoom like the edges do,
	// so that arrows keep ending on the boxes' edges.
	NodeScaleRatio float64        `json:"nodeScaleRatio"`
	Emphasis       map[string]any `json:"emphasis"`
}

func (graphVisitor) VisitSeriesOpt(series charts.MultiSeries) any {
	out := make([]graphSeries, len(series))
	for i, s := range series {
		out[i] = graphSeries{
			SingleSeries:   s,
			NodeScaleRatio: 1,
			Emphasis:       map[string]any{"scale": false, "lineStyle": map[string]any{"width": 2.5, "color": "#1f2a36"}},
		}
	}
	return out
}

func (graphVisitor) Visit(chart map[string]any) {
	// Keep tooltips inside the canvas and let long attributes wrap.
	if t, ok := chart["tooltip"].(opts.Tooltip); ok {
		chart["tooltip"] = struct {
			opts.Tooltip
			Confine      bool   `json:"confine"`
			ExtraCSSText string `json:"extraCssText"`
		}{t, true, "max-width: 420px; white-space: normal;"}
	}
}

// echNode is one data item of the graph series: a box, an invisible port
// or bend point that edges start, bend and end at, or an anchor. go-echarts'
// GraphNode drops x and y when they are 0 and has no per-item label or id,
// hence this type.
type echNode struct {
	ID         string      `json:"id"`
	Name       string      `json:"name"`
	X          float64     `json:"x"`
	Y          float64     `json:"y"`
	Category   *int        `json:"category,omitempty"`
	Symbol     string      `json:"symbol"`
	SymbolSize any         `json:"symbolSize"`
	Text       string      `json:"text,omitempty"`
	Tip        string      `json:"tip,omitempty"`
	Label      *itemLabel  `json:"label,omitempty"`
	Tooltip    *itemToggle `json:"tooltip,omitempty"`
	Emphasis   *itemToggle `json:"emphasis,omitempty"`
}

type itemLabel struct {
	Show       bool    `json:"show"`
	FontSize   float64 `json:"fontSize,omitempty"`
	LineHeight float64 `json:"lineHeight,omitempty"`
	Width      float64 `json:"width,omitempty"`
	Overflow   string  `json:"overflow,omitempty"`
}

type itemToggle struct {
	Show     *bool `json:"show,omitempty"`
	Disabled *bool `json:"disabled,omitempty"`
}

// echLink is one straight segment of an edge; only the last has the arrow.
type echLink struct {
	Source int      `json:"source"`
	Target int      `json:"target"`
	Symbol []string `json:"symbol,omitempty"`
	Tip    string   `json:"tip,omitempty"`
}

// graphData turns a layout into the graph series' nodes and links. echarts
// draws an edge between node centres and shortens it by the end nodes'
// symbol sizes, so edges do not join the boxes: each edge is a chain of
// zero-size points along the layout's polyline, from the bottom of its
// source box to the top of its target, where the arrow ends exactly. Points
// take the category of the box they touch, so hiding a kind hides its
// edges. Two anchors without a category pin the view to the layout's
// rectangle whatever is hidden.
func graphData(l *Layout, kindIndex map[string]int) ([]echNode, []echLink) {
	no, yes := false, true
	var nodes []echNode
	var links []echLink
	for i := range l.Nodes {
		n := &l.Nodes[i]
		cat := kindIndex[n.Kind]
		// An op box has two lines; a parameter's short box one, smaller.
		text, label := n.Label, &itemLabel{Show: true, Width: math.Max(n.W-8, 8), Overflow: "truncate"}
		if n.H < 2*htmlLineHeight {
			label.FontSize, label.LineHeight = 10, 12
			if n.Detail != "" {
				text += " " + n.Detail
			}
		} else if n.Detail != "" {
			text += "\n" + n.Detail
		}
		nodes = append(nodes, echNode{
			ID:         "n" + strconv.Itoa(i),
			Name:       n.Name,
			X:          n.X + n.W/2,
			Y:          n.Y + n.H/2,
			Category:   &cat,
			Symbol:     "roundRect",
			SymbolSize: []float64{n.W, n.H},
			Text:       text,
			Tip:        nodeTip(n),
			Label:      label,
		})
	}
	byID := map[int]int{}
	for i, n := range l.Nodes {
		byID[n.ID] = i
	}
	hidden := func(id string, x, y float64, cat *int) int {
		nodes = append(nodes, echNode{
			ID: id, Name: id, X: x, Y: y, Category: cat,
			Symbol: "none", SymbolSize: 0,
			Label:    &itemLabel{Show: false},
			Tooltip:  &itemToggle{Show: &no},
			Emphasis: &itemToggle{Disabled: &yes},
		})
		return len(nodes) - 1
	}
	for e, edge := range l.Edges {
		from, okF := byID[edge.From]
		to, okT := byID[edge.To]
		if !okF || !okT {
			continue
		}
		pts := edge.Points
		if len(pts) < 2 { // fall back to bottom centre to top centre
			f, t := l.Nodes[from], l.Nodes[to]
			pts = [][2]float64{{f.X + f.W/2, f.Y + f.H}, {t.X + t.W/2, t.Y}}
		}
		fromCat, toCat := *nodes[from].Category, *nodes[to].Category
		tip := edgeTip(&l.Nodes[from], &l.Nodes[to])
		prev := -1
		for p, pt := range pts {
			cat := &fromCat
			if p == len(pts)-1 {
				cat = &toCat
			}
			cur := hidden(fmt.Sprintf("e%dp%d", e, p), pt[0], pt[1], cat)
			if prev >= 0 {
				link := echLink{Source: prev, Target: cur, Tip: tip}
				if p < len(pts)-1 {
					link.Symbol = []string{"none", "none"}
				}
				links = append(links, link)
			}
			prev = cur
		}
	}
	hidden("anchor0", 0, 0, nil)
	hidden("anchor1", l.Width, l.Height, nil)
	return nodes, links
}

// nodeTip is a node's tooltip, in HTML.
func nodeTip(n *Node) string {
	var b strings.Builder
	esc := html.EscapeString
	row := func(k, v string) {
		fmt.Fprintf(&b, "<br/><span style=\"color:#666\">%s</span> %s", esc(k), esc(v))
	}
	fmt.Fprintf(&b, "<b>%s</b>", esc(n.Name))
	switch {
	case n.Op != "":
		row("op", n.Op+" ("+n.Kind+")")
	default:
		row("kind", n.Kind)
	}
	if len(n.Shape) > 0 {
		row("shape", shapeText(n.Shape))
	}
	row("dtype", n.DType.String())
	if n.Detail != "" {
		row("detail", n.Detail)
	}
	if n.Params > 0 {
		row("params", groupDigits(int64(n.Params)))
	}
	if n.FLOPs > 0 {
		row("FLOPs", groupDigits(n.FLOPs))
	}
	if n.Buffer >= 0 {
		row("buffer", strconv.Itoa(n.Buffer))
	}
	keys := make([]string, 0, len(n.Attrs))
	for k := range n.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		row(k, n.Attrs[k])
	}
	return b.String()
}

// edgeTip is an edge's tooltip: where it goes and the tensor it carries.
func edgeTip(from, to *Node) string {
	s := html.EscapeString(from.Name + " → " + to.Name)
	if len(from.Shape) > 0 {
		s += "<br/>" + html.EscapeString(shapeText(from.Shape)+" "+from.DType.String())
	}
	return s
}

// shapeText writes a shape as "16x6x24x24" (0 for an unknown dim: "?").
func shapeText(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		if d == 0 {
			parts[i] = "?"
		} else {
			parts[i] = strconv.Itoa(d)
		}
	}
	return strings.Join(parts, "x")
}

// groupDigits writes 1234567 as "1,234,567".
func groupDigits(v int64) string {
	s := strconv.FormatInt(v, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// textColor picks black or white text for a CSS hex fill, whichever reads
// better (by the fill's relative luminance).
func textColor(fill string) string {
	r, g, b, ok := parseHex(fill)
	if !ok {
		return "#1b1f23"
	}
	lin := func(c float64) float64 {
		c /= 255
		if c <= 0.03928 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	if 0.2126*lin(r)+0.7152*lin(g)+0.0722*lin(b) < 0.25 {
		return "#ffffff"
	}
	return "#1b1f23"
}

// parseHex reads "#rgb" or "#rrggbb".
func parseHex(s string) (r, g, b float64, ok bool) {
	s = strings.TrimPrefix(s, "#")
	if len(s) == 3 {
		s = string([]byte{s[0], s[0], s[1], s[1], s[2], s[2]})
	}
	if len(s) != 6 {
		return 0, 0, 0, false
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return 0, 0, 0, false
	}
	return float64(v >> 16 & 0xff), float64(v >> 8 & 0xff), float64(v & 0xff), true
}
