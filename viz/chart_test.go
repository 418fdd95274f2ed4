package viz_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/viz"
)

var nan = math.NaN()

var testCurves = []viz.Series{
	{Name: "train loss", X: []float64{1, 2, 3, 4}, Y: []float64{2, 1, 0.7, 0.6}},
	{Name: "validation loss", X: []float64{1, 2, 3, 4}, Y: []float64{1.5, nan, 0.8, 0.75}},
	{Name: "accuracy & <more>", X: []float64{1, 2, 3, 4, 5}, Y: []float64{0.5, 0.7, 0.8, 0.85}},
}

// wellFormed parses an SVG as XML.
func wellFormed(t *testing.T, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v\n%s", err, svg)
		}
	}
}

func TestLineChartSVG(t *testing.T) {
	svg := viz.LineChartSVG("Training", testCurves, 640, 360)
	wellFormed(t, svg)
	s := string(svg)
	if !strings.HasPrefix(s, `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="360"`) {
		t.Errorf("unexpected SVG header: %.100s", s)
	}
	paths := regexp.MustCompile(`<path class="series" data-series="([^"]*)" d="([^"]*)" fill="none" stroke="(#[0-9a-f]{6})"`).FindAllStringSubmatch(s, -1)
	if len(paths) != len(testCurves) {
		t.Fatalf("%d series paths, want %d", len(paths), len(testCurves))
	}
	colors := map[string]bool{}
	for i, p := range paths {
		if want := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(testCurves[i].Name); p[1] != want {
			t.Errorf("path %d is for %q, want %q", i, p[1], want)
		}
		if p[3] != viz.SeriesColor(i) {
			t.Errorf("path %d has colour %s, want %s", i, p[3], viz.SeriesColor(i))
		}
		colors[p[3]] = true
	}
	if len(colors) != len(testCurves) {
		t.Errorf("series share colours: %v", colors)
	}
	// The NaN breaks the validation curve in two; the accuracy curve has
	// four points (X's fifth has no Y).
	if m := strings.Count(paths[1][2], "M"); m != 2 {
		t.Errorf("the validation path has %d pieces, want 2: %s", m, paths[1][2])
	}
	if n := strings.Count(paths[2][2], "M") + strings.Count(paths[2][2], "L"); n != 4 {
		t.Errorf("the accuracy path has %d points, want 4: %s", n, paths[2][2])
	}
	if n := strings.Count(s, `<g class="legend-item">`); n != len(testCurves) {
		t.Errorf("%d legend items, want %d", n, len(testCurves))
	}
	for _, want := range []string{`class="title"`, ">Training</text>", ">validation loss</text>", ">accuracy &amp; &lt;more&gt;</text>", `class="axis"`, ">0.5</text>", ">2.0</text>"} {
		if !strings.Contains(s, want) {
			t.Errorf("the SVG lacks %s", want)
		}
	}
	if !bytes.Equal(svg, viz.LineChartSVG("Training", testCurves, 640, 360)) {
		t.Error("the same curves gave two different SVGs")
	}
}

func TestLineChartSVGEdgeCases(t *testing.T) {
	for name, series := range map[string][]viz.Series{
		"none":     nil,
		"empty":    {{Name: "a"}},
		"all NaN":  {{Name: "a", X: []float64{1, 2}, Y: []float64{nan, math.Inf(1)}}},
		"constant": {{Name: "a", X: []float64{1, 1}, Y: []float64{3, 3}}},
		"zero":     {{Name: "a", X: []float64{0}, Y: []float64{0}}},
		"tiny":     {{Name: "a", X: []float64{0, 1e-9}, Y: []float64{1e-12, 2e-12}}},
		"huge":     {{Name: "a", X: []float64{-1e12, 1e12}, Y: []float64{-5, 1e15}}},
	} {
		svg := viz.LineChartSVG("", series, 0, 0)
		wellFormed(t, svg)
		if !bytes.Contains(svg, []byte(`width="640" height="400"`)) {
			t.Errorf("%s: default size not used", name)
		}
		if bytes.Contains(svg, []byte("NaN")) || bytes.Contains(svg, []byte("Inf")) {
			t.Errorf("%s: NaN or Inf in the SVG:\n%s", name, svg)
		}
	}
}

func TestLineChartHTML(t *testing.T) {
	data, err := viz.LineChartHTML("Training", testCurves, viz.HTMLOptions{AssetsHost: "/assets"})
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{
		"<title>Training</title>", `"type":"line"`, `"name":"train loss"`, `"name":"validation loss"`,
		`"data":["train loss","validation loss","accuracy & <more>"]`,
		`{"value":[2,"-"]}`, // the NaN is a gap
		`"xAxis":[{"type":"value"`, `<script src="file:///assets/echarts.min.js"></script>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the chart page lacks %s", want)
		}
	}
	if strings.Contains(s, "NaN") {
		t.Error("NaN in the chart page")
	}
	again, _ := viz.LineChartHTML("Training", testCurves, viz.HTMLOptions{AssetsHost: "/assets"})
	if !bytes.Equal(data, again) {
		t.Error("the same curves gave two different pages")
	}
}

func TestSparkline(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		ys    []float64
		width int
		want  string
	}{
		{nil, 10, ""},
		{[]float64{1, 2}, 0, "▁█"},
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7}, 0, "▁▂▃▄▅▆▇█"},
		{[]float64{7, 6, 5, 4, 3, 2, 1, 0}, 8, "█▇▆▅▄▃▂▁"},
		{[]float64{3, 3, 3}, 0, "▄▄▄"},
		{[]float64{1, nan, 3}, 0, "▁ █"},
		{[]float64{nan, nan}, 3, "   "},
		{[]float64{1, inf, 2, -inf}, 0, "▁ █ "},
		// Averaged down: pairs (0,1) (2,3) (4,5) (6,7) → 0.5 2.5 4.5 6.5.
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7}, 4, "▁▃▆█"},
		// A NaN inside a bucket is left out of its mean.
		{[]float64{0, nan, 4, 4}, 2, "▁█"},
		// Interpolated up.
		{[]float64{0, 1}, 8, "▁▂▃▄▅▆▇█"},
		{[]float64{5}, 4, "▄▄▄▄"},
		{[]float64{0, nan, 1}, 5, "▁  ██"},
		// A loss curve.
		{[]float64{2.3, 1.1, 0.7, 0.55, 0.5, 0.47, 0.45, 0.44}, 0, "█▃▂▁▁▁▁▁"},
	} {
		got := viz.Sparkline(c.ys, c.width)
		if got != c.want {
			t.Errorf("Sparkline(%v, %d) = %q, want %q", c.ys, c.width, got, c.want)
		}
		if c.width > 0 && len(c.ys) > 0 {
			if n := len([]rune(got)); n != c.width {
				t.Errorf("Sparkline(%v, %d) is %d runes wide", c.ys, c.width, n)
			}
		}
	}
}
