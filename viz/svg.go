package viz

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/hybridgo/hybridgo/graph"
)

// SVGOptions choose the frame of an SVG drawing.
type SVGOptions struct {
	Title  string // drawn above the graph when not empty
	Legend bool   // a legend of the kinds drawn, right of the graph
}

// DefaultSVGOptions draws a legend and no title.
func DefaultSVGOptions() SVGOptions { return SVGOptions{Legend: true} }

// DrawSVG lays out g and draws it as SVG with the default frame.
func DrawSVG(g *graph.Graph, o Options) ([]byte, error) {
	l, err := LayoutGraph(g, o)
	if err != nil {
		return nil, err
	}
	return SVG(l, DefaultSVGOptions()), nil
}

// SVG draws a layout as a standalone SVG document: rounded boxes filled
// by kind with the label and detail inside, parameters lighter and
// smaller, edges with arrowheads, and optionally a title and a legend.
// Its viewBox (and width and height) fit the drawing exactly; the same
// layout always gives the same bytes.
func SVG(l *Layout, o SVGOptions) []byte {
	return svgPanels([]panel{{o.Title, l}}, o.Legend)
}

// panel is one layout of a drawing, with its title.
type panel struct {
	title string
	l     *Layout
}

const (
	titleH   = 28.0
	panelGap = 30.0
	legendW  = 120.0
	legendRH = 18.0
	fontFam  = "DejaVu Sans, Helvetica, Arial, sans-serif"
)

// svgPanels draws layouts side by side, top-aligned, each under its title.
func svgPanels(ps []panel, legend bool) []byte {
	var width, height float64
	hasTitle := false
	for i, p := range ps {
		if i > 0 {
			width += panelGap
		}
		width += p.l.Width
		height = math.Max(height, p.l.Height)
		if p.title != "" {
			hasTitle = true
		}
	}
	top := 0.0
	if hasTitle {
		top = titleH
	}
	present := map[string]bool{}
	for _, p := range ps {
		for _, n := range p.l.Nodes {
			present[n.Kind] = true
		}
	}
	var legendKinds []string
	for _, k := range Kinds() {
		if present[k] {
			legendKinds = append(legendKinds, k)
		}
	}
	if legend && len(legendKinds) > 0 {
		width += legendW
		height = math.Max(height, margin+float64(len(legendKinds)+1)*legendRH+margin)
	}
	height += top
	width, height = math.Ceil(width), math.Ceil(height)

	var b bytes.Buffer
	w, h := num(width), num(height)
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + w + `" height="` + h + `" viewBox="0 0 ` + w + ` ` + h + `" font-family="` + fontFam + `">` + "\n")
	b.WriteString(`<defs><marker id="hgarrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>` + "\n")
	b.WriteString(`<rect class="background" width="` + w + `" height="` + h + `" fill="#ffffff"/>` + "\n")
	x := 0.0
	for _, p := range ps {
		if p.title != "" {
			b.WriteString(`<text class="title" x="` + num(x+margin) + `" y="` + num(titleH-6) + `" font-size="15" font-weight="bold" fill="#222">` + esc(p.title) + "</text>\n")
		}
		drawLayout(&b, p.l, x, top)
		x += p.l.Width + panelGap
	}
	if legend && len(legendKinds) > 0 {
		lx := width - legendW + 8
		ly := top + margin
		b.WriteString(`<g class="legend">` + "\n")
		b.WriteString(`<text x="` + num(lx) + `" y="` + num(ly+10) + `" font-size="11" font-weight="bold" fill="#333">kinds</text>` + "\n")
		for i, k := range legendKinds {
			y := ly + float64(i+1)*legendRH
			b.WriteString(`<rect class="swatch" x="` + num(lx) + `" y="` + num(y) + `" width="12" height="12" rx="3" fill="` + KindColor(k) + `" stroke="#777" stroke-width="0.8"/>`)
			b.WriteString(`<text x="` + num(lx+18) + `" y="` + num(y+10) + `" font-size="11" fill="#333">` + k + "</text>\n")
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// drawLayout writes one layout's edges and boxes, shifted by (dx, dy).
func drawLayout(b *bytes.Buffer, l *Layout, dx, dy float64) {
	b.WriteString(`<g class="edges" fill="none" stroke="#666" stroke-width="1.2">` + "\n")
	for _, e := range l.Edges {
		b.WriteString(`<path d="` + edgePath(e.Points, dx, dy) + `" marker-end="url(#hgarrow)"`)
		if k := l.Nodes[e.From].Kind; k == "param" || k == "const" {
			b.WriteString(` stroke="#aaa"`)
		}
		b.WriteString("/>\n")
	}
	b.WriteString("</g>\n")
	b.WriteString(`<g class="nodes">` + "\n")
	for _, n := range l.Nodes {
		x, y := n.X+dx, n.Y+dy
		b.WriteString(`<g class="node ` + n.Kind + `"><title>` + esc(tooltip(n)) + "</title>")
		small := (n.Kind == "param" || n.Kind == "const") && n.H < opH
		fill := KindColor(n.Kind)
		switch {
		case small:
			b.WriteString(`<rect class="node" x="` + num(x) + `" y="` + num(y) + `" width="` + num(n.W) + `" height="` + num(n.H) + `" rx="4" fill="` + fill + `" stroke="#aaa" stroke-width="0.8" stroke-dasharray="3,2"/>`)
			b.WriteString(`<text x="` + num(x+6) + `" y="` + num(y+n.H/2+3.5) + `" font-size="10" fill="#444">` + esc(n.Label) + `<tspan fill="#888"> ` + esc(n.Detail) + "</tspan></text>")
		default:
			stroke, sw := "#555", "1"
			if n.Kind == "block" {
				sw = "2"
			}
			b.WriteString(`<rect class="node" x="` + num(x) + `" y="` + num(y) + `" width="` + num(n.W) + `" height="` + num(n.H) + `" rx="6" fill="` + fill + `" stroke="` + stroke + `" stroke-width="` + sw + `"/>`)
			cx := num(x + n.W/2)
			b.WriteString(`<text x="` + cx + `" y="` + num(y+16) + `" font-size="12" text-anchor="middle" fill="#111">` + esc(n.Label) + "</text>")
			b.WriteString(`<text x="` + cx + `" y="` + num(y+31) + `" font-size="11" text-anchor="middle" fill="#444">` + esc(n.Detail) + "</text>")
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</g>\n")
}

// edgePath turns a polyline into path data: vertical and horizontal runs
// are lines, other runs S-curves that leave and arrive vertically.
func edgePath(pts [][2]float64, dx, dy float64) string {
	var s strings.Builder
	for i, p := range pts {
		x, y := p[0]+dx, p[1]+dy
		if i == 0 {
			s.WriteString("M" + num(x) + "," + num(y))
			continue
		}
		px, py := pts[i-1][0]+dx, pts[i-1][1]+dy
		if px == x || py == y {
			s.WriteString(" L" + num(x) + "," + num(y))
			continue
		}
		my := (py + y) / 2
		s.WriteString(" C" + num(px) + "," + num(my) + " " + num(x) + "," + num(my) + " " + num(x) + "," + num(y))
	}
	return s.String()
}

// tooltip lists a node's name, op, output and attributes.
func tooltip(n Node) string {
	var s strings.Builder
	s.WriteString(n.Name)
	if n.Op != "" {
		s.WriteString(" (" + n.Op + ")")
	}
	s.WriteString("\n" + n.Detail)
	keys := make([]string, 0, len(n.Attrs))
	for k := range n.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s.WriteString("\n" + k + " = " + n.Attrs[k])
	}
	return s.String()
}

// num prints a coordinate with at most two decimals.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// esc escapes text for XML.
func esc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		default:
			if r < 0x20 && r != '\n' && r != '\t' {
				continue // not allowed in XML 1.0
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}
