package viz_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/viz"
)

// testTimeline is one call of a small network in two modes: a block over
// its ops, with interpreter time between them.
var testTimeline = viz.Timeline{
	Title: "one call </script> & more",
	Lanes: []string{"eager", "eager ›", "hybridized", "hybridized ›"},
	Spans: []viz.Span{
		{Name: "net0", Kind: "block", Lane: 0, Start: 0, End: 40, Tip: "net0\ntime 40µs"},
		{Name: "Convolution", Kind: "conv", Lane: 1, Start: 2, End: 20, Tip: "Convolution <eager>"},
		{Name: "", Kind: "dispatch", Color: "#7f7f7f", Lane: 1, Start: 20, End: 24},
		{Name: "relu", Kind: "activation", Lane: 1, Start: 24, End: 30},
		{Name: "net0", Kind: "block", Lane: 2, Start: 0, End: 18},
		{Name: "_fused_Convolution_relu", Kind: "fused", Lane: 3, Start: 1, End: 17},
		{Name: "lost", Kind: "conv", Lane: 9, Start: 1, End: 2}, // no such lane: not drawn
	},
}

func TestTimelineSVG(t *testing.T) {
	svg := viz.TimelineSVG(testTimeline, 800)
	wellFormed(t, svg)
	if !bytes.Equal(svg, viz.TimelineSVG(testTimeline, 800)) {
		t.Error("the same timeline gave different bytes")
	}
	s := string(svg)
	for _, want := range []string{
		`width="800"`, "one call &lt;/script&gt; &amp; more", ">eager ›<", ">hybridized<",
		"<title>Convolution &lt;eager&gt;</title>", ">Convolution<", ">µs<",
		viz.KindColor("conv"), viz.KindColor("fused"), viz.KindColor("block"), "#7f7f7f",
		">block<", ">dispatch<", // the legend
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	if n := strings.Count(s, `<g class="span">`); n != len(testTimeline.Spans)-1 {
		t.Errorf("%d bars, want %d", n, len(testTimeline.Spans)-1)
	}
	// The fused bar spans 16 of the axis' 40µs: too short for its whole
	// name at this width, so the name is cut.
	if strings.Contains(s, ">_fused_Convolution_relu<") == strings.Contains(s, "_fused_Conv…") {
		t.Errorf("the fused op's label is neither whole nor cut once:\n%s", s)
	}
}

func TestTimelineHTML(t *testing.T) {
	page, err := viz.TimelineHTML(testTimeline, viz.HTMLOptions{AssetsHost: "assets"})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := viz.TimelineHTML(testTimeline, viz.HTMLOptions{AssetsHost: "assets"})
	if !bytes.Equal(page, again) {
		t.Error("the same timeline gave different pages")
	}
	p := string(page)
	for _, want := range []string{`<script src="assets/echarts.min.js">`, `"type":"custom"`, `"inverse":true`,
		`"data":["eager","eager ›","hybridized","hybridized ›"]`, "Convolution &lt;eager&gt;", "net0<br>time 40µs"} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// A name cannot end the page's script.
	if !strings.Contains(p, `one call <\/script> & more`) {
		t.Error("the title's </script> is not written <\\/script>")
	}
	// One series per kind, and one data item per bar drawn.
	for _, kind := range []string{"conv", "activation", "fused", "block", "dispatch"} {
		if !strings.Contains(p, `{"name":"`+kind+`","type":"custom"`) {
			t.Errorf("no series for kind %s", kind)
		}
	}
	if n := strings.Count(p, `"value":[`); n != len(testTimeline.Spans)-1 {
		t.Errorf("%d data items, want %d", n, len(testTimeline.Spans)-1)
	}
	// go-echarts keeps the escapes of the code it writes, which would break it.
	if m := regexp.MustCompile(`renderItem":function[^}]*\\`).FindString(p); m != "" {
		t.Errorf("the renderItem code has a backslash: %s", m)
	}
}
