package viz_test

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
	"github.com/hybridgo/hybridgo/viz"
)

// small is data -> FullyConnected(weight, bias) -> relu, with a name that
// needs escaping.
func small(t testing.TB) *graph.Graph {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("data<&>", ops.Shape{2, 4}, ops.Float32)
	w := graph.Var("fc_weight", ops.Shape{3, 4}, ops.Float32)
	b := graph.Var("fc_bias", ops.Shape{3}, ops.Float32)
	return F.Relu(F.FullyConnected(x, w, b, 3)).(*graph.Symbol).Graph()
}

func TestSVGStructure(t *testing.T) {
	l, err := viz.LayoutGraph(small(t), viz.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	svg := viz.SVG(l, viz.SVGOptions{Title: "a <small> net", Legend: true})
	s := string(svg)
	if err := xml.Unmarshal(svg, new(struct{})); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := d.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not XML: %v", err)
			}
			break
		}
	}
	if got := strings.Count(s, `<rect class="node"`); got != 5 {
		t.Errorf("%d node boxes, want 5", got)
	}
	if got := strings.Count(s, `marker-end="url(#hgarrow)"`); got != 4 {
		t.Errorf("%d edges with arrows, want 4", got)
	}
	for _, want := range []string{"data&lt;&amp;&gt;", "fullyconnected0 FullyConnected", "relu0 relu", "2x3", "a &lt;small&gt; net", `class="swatch"`, ">dense</text>"} {
		if !strings.Contains(s, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if got := strings.Count(s, `class="swatch"`); got != 4 { // input, param, dense, activation
		t.Errorf("%d legend entries, want 4", got)
	}
	m := regexp.MustCompile(`^<svg [^>]*width="(\d+)" height="(\d+)" viewBox="0 0 (\d+) (\d+)"`).FindStringSubmatch(s)
	if m == nil || m[1] != m[3] || m[2] != m[4] {
		t.Fatalf("svg header: %.200s", s)
	}
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	if float64(w) < l.Width || float64(h) < l.Height || float64(w) > l.Width+130 || float64(h) > l.Height+40 {
		t.Errorf("viewBox %dx%d for a %gx%g layout", w, h, l.Width, l.Height)
	}
	// Every coordinate lies inside the viewBox.
	for _, c := range regexp.MustCompile(` (x|y)="([0-9.]+)"`).FindAllStringSubmatch(s, -1) {
		v, _ := strconv.ParseFloat(c[2], 64)
		if lim := map[string]int{"x": w, "y": h}[c[1]]; v <= 0 || v >= float64(lim) {
			t.Errorf("%s=%v outside the %dx%d viewBox", c[1], v, w, h)
		}
	}
	again, _ := viz.DrawSVG(small(t), viz.DefaultOptions())
	twice, _ := viz.DrawSVG(small(t), viz.DefaultOptions())
	if !bytes.Equal(again, twice) {
		t.Error("two drawings of one graph differ")
	}
}

func TestSVGNoLegend(t *testing.T) {
	l, _ := viz.LayoutGraph(lenet(t), viz.DefaultOptions())
	s := string(viz.SVG(l, viz.SVGOptions{}))
	if strings.Contains(s, "swatch") || strings.Contains(s, `class="title"`) {
		t.Error("legend or title drawn when not asked for")
	}
	if !strings.Contains(s, `viewBox="0 0 `+strconv.Itoa(int(l.Width))+" "+strconv.Itoa(int(l.Height))+`"`) {
		t.Errorf("viewBox does not fit the layout %gx%g: %.200s", l.Width, l.Height, s)
	}
	if got := strings.Count(s, `<rect class="node"`); got != len(l.Nodes) {
		t.Errorf("%d boxes for %d nodes", got, len(l.Nodes))
	}
}
