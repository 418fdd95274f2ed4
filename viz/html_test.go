package viz_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/viz"
)

func lenetHTML(t *testing.T, h viz.HTMLOptions) string {
	t.Helper()
	data, err := viz.DrawHTML(lenet(t), viz.DefaultOptions(), h)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestHTMLGraphPage(t *testing.T) {
	page := lenetHTML(t, viz.HTMLOptions{Title: "LeNet"})
	for _, want := range []string{
		"<title>LeNet</title>",
		`"type":"graph"`, `"layout":"none"`, `"roam":true`, `"edgeSymbol":["none","arrow"]`,
		`"nodeScaleRatio":1`,
		// The legend lists the kinds present, in legend order.
		`"data":["input","param","conv","dense","pool","activation","shape"]`,
		// Boxes with their labels, parameters with one-line labels.
		`"name":"convolution0"`, `"text":"convolution0 Convolution\n16x6x24x24"`,
		`"name":"fullyconnected1"`, `"text":"conv0_weight 6x1x5x5"`,
		// Tooltips: op, kind, shape, dtype and attributes.
		`<b>convolution0<\/b>`, `Convolution (conv)`, `16x6x24x24`, `float32`, `kernel`,
		// Edge tooltips.
		`pooling1 → reshape0`,
		// go-echarts' CDN by default.
		`<script src="https://go-echarts.github.io/go-echarts-assets/assets/echarts.min.js"></script>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, kind := range []string{"input", "param", "conv", "dense", "pool", "activation", "shape"} {
		if !strings.Contains(page, `{"name":"`+kind+`","itemStyle":{"color":"`+viz.KindColor(kind)+`"`) {
			t.Errorf("the page has no category %s coloured %s", kind, viz.KindColor(kind))
		}
	}
	for _, absent := range []string{`"name":"norm"`, "__f__", "ZgotmplZ", "NaN", "Awesome go-echarts"} {
		if strings.Contains(page, absent) {
			t.Errorf("the page contains %s", absent)
		}
	}
}

func TestHTMLDeterministic(t *testing.T) {
	a := lenetHTML(t, viz.HTMLOptions{})
	b := lenetHTML(t, viz.HTMLOptions{})
	if a != b {
		t.Fatal("the same graph gave two different pages")
	}
	ids := regexp.MustCompile(`id="(hybridgo_[0-9a-f]{16})"`).FindStringSubmatch(a)
	if ids == nil {
		t.Fatalf("no content-derived chart id in the page")
	}
	if c := lenetHTML(t, viz.HTMLOptions{Title: "other"}); strings.Contains(c, ids[1]) {
		t.Errorf("two different pages share the chart id %s", ids[1])
	}
	d := lenetHTML(t, viz.HTMLOptions{ChartID: "mygraph"})
	if !strings.Contains(d, `id="mygraph"`) || !strings.Contains(d, "goecharts_mygraph.setOption(option_mygraph)") {
		t.Errorf("ChartID is not used as the chart's id")
	}
	if strings.Contains(d, "hybridgo_") {
		t.Errorf("a placeholder or derived id is left with ChartID set")
	}
}

func TestHTMLAssetsHost(t *testing.T) {
	for host, src := range map[string]string{
		"":                     "https://go-echarts.github.io/go-echarts-assets/assets/echarts.min.js",
		"/opt/echarts/dist":    "file:///opt/echarts/dist/echarts.min.js",
		"/opt/echarts/dist/":   "file:///opt/echarts/dist/echarts.min.js",
		"file:///opt/e":        "file:///opt/e/echarts.min.js",
		"https://cdn.example/": "https://cdn.example/echarts.min.js",
		"assets":               "assets/echarts.min.js",
	} {
		data, err := viz.HTML(&viz.Layout{Width: 10, Height: 10}, viz.HTMLOptions{AssetsHost: host})
		if err != nil {
			t.Fatal(err)
		}
		if want := `<script src="` + src + `"></script>`; !bytes.Contains(data, []byte(want)) {
			t.Errorf("AssetsHost %q: no %s in\n%s", host, want, data[:min(len(data), 400)])
		}
		if n := bytes.Count(data, []byte("echarts.min.js")); n != 1 {
			t.Errorf("AssetsHost %q: echarts.min.js is loaded %d times", host, n)
		}
	}
}

func TestHTMLEscapes(t *testing.T) {
	l := &viz.Layout{
		Nodes: []viz.Node{
			{ID: 0, Name: "a</script><script>alert(1)</script>", Kind: "input", Label: "a</script>", X: 20, Y: 20, W: 100, H: 40, Buffer: -1,
				Attrs: map[string]string{"note": "<b>&{b}</b>"}},
			{ID: 1, Name: "b", Op: "relu", Kind: "activation", Label: "b relu", X: 20, Y: 100, W: 100, H: 40, Buffer: 3},
		},
		Edges:  []viz.Edge{{From: 0, To: 1, Points: [][2]float64{{70, 60}, {70, 100}}}},
		Width:  140,
		Height: 160,
	}
	data, err := viz.HTML(l, viz.HTMLOptions{Title: "<x>"})
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if n := strings.Count(page, "</script"); n != 2 { // the echarts script and ours
		t.Errorf("%d </script in the page, want 2:\n%s", n, page)
	}
	if !strings.Contains(page, "&lt;b&gt;&amp;{b}&lt;/b&gt;") { // HTML-escaped: no "</" left
		t.Errorf("attribute values are not escaped in tooltips")
	}
	if !strings.Contains(page, `buffer<\/span> 3`) {
		t.Errorf("the memory-plan buffer is not in the tooltip")
	}
	if !strings.Contains(page, "<title>&lt;x&gt;</title>") {
		t.Errorf("the title is not escaped")
	}
	// The arrow's last segment keeps the arrow; the view is pinned by anchors.
	for _, want := range []string{`"id":"e0p0"`, `"id":"e0p1"`, `"id":"anchor1","name":"anchor1","x":140,"y":160`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

func TestHTMLNil(t *testing.T) {
	if _, err := viz.HTML(nil, viz.HTMLOptions{}); err == nil {
		t.Error("HTML(nil) gave no error")
	}
	if _, err := viz.DrawHTML(nil, viz.DefaultOptions(), viz.HTMLOptions{}); err == nil {
		t.Error("DrawHTML(nil) gave no error")
	}
}
