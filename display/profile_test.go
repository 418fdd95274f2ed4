package display

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/profiler"
)

// profiledMLP is two Dense layers, the first with a relu that fuses into
// it when hybridized, and an input.
func profiledMLP(t *testing.T) (*nn.HybridSequential, *eager.NDArray) {
	t.Helper()
	eager.Seed(1)
	net := nn.NewHybridSequential(nn.NewDense(8, nn.DenseOptions{Act: "relu"}), nn.NewDense(3))
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	return net, eager.RandomNormal(4, 5)
}

// checkSVG fails unless s parses as XML with an <svg> root.
func checkSVG(t *testing.T, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG does not parse as XML: %v\n%s", err, s)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("the SVG's root element is %q", root)
	}
}

// TestProfilePublishes checks the one output display.Profile publishes:
// the comparison's text, and in HTML its table, both modes' top ops and
// the timeline as an echarts chart over its SVG.
func TestProfilePublishes(t *testing.T) {
	net, x := profiledMLP(t)
	rec := &recorder{}
	withPublisher(t, rec)
	Profile(net, func() { net.Forward(x) })
	if len(rec.calls) != 1 {
		t.Fatalf("%d displays, want 1", len(rec.calls))
	}
	if net.Hybridized() {
		t.Error("Profile left the network hybridized")
	}
	b := rec.calls[0].b
	text, h, svg := str(t, b, MIMEText), str(t, b, MIMEHTML), str(t, b, MIMESVG)
	for _, want := range []string{"time per call", "interpreter/dispatch", "hybridized, top ops:"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, want := range []string{
		"<th>eager</th><th>hybridized</th>", "time per call", "op calls per call", "time in ops",
		"interpreter/dispatch", "allocated per call", "planned per call", "peak per call",
		"fused: <code>_fused_FullyConnected_relu</code>",
		"<caption>eager, top ops</caption>", "<caption>hybridized, top ops</caption>",
		`data-hybridgo-chart=`, "echarts.min.js", `"type":"custom"`, `<div class="hybridgo-fallback"`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if !strings.Contains(h, svg) {
		t.Error("the HTML's fallback is not the bundle's SVG")
	}
	checkSVG(t, svg)
	for _, want := range []string{">eager<", ">eager ›<", ">hybridized ›<", "<title>FullyConnected (eager)", "<title>_fused_FullyConnected_relu (fused)", ">interpreter/dispatch<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the timeline SVG lacks %q", want)
		}
	}
	// Rows: the table's header, then Comparison.Rows.
	if got, want := len(cells(h[:strings.Index(h, "</table>")])), 1+len(profiler.Modes(net, 1, func() { net.Forward(x) }).Rows()); got != want {
		t.Errorf("comparison table has %d rows, want %d", got, want)
	}
}

// TestRenderProfile checks a single profile's bundle, and that the
// timeline shows its last call only.
func TestRenderProfile(t *testing.T) {
	net, x := profiledMLP(t)
	p := profiler.Run(func() {
		net.Forward(x)
		net.Forward(x)
	})
	b := Render(p)
	if got, want := b.Text(), p.String(); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	svg := str(t, b, MIMESVG)
	checkSVG(t, svg)
	if n := strings.Count(svg, "<title>FullyConnected (eager)"); n != 2 {
		t.Errorf("timeline of one call has %d FullyConnected bars, want 2", n)
	}
	for _, want := range []string{"<caption>top ops</caption>", "op calls", `data-hybridgo-chart=`} {
		if !strings.Contains(str(t, b, MIMEHTML), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// Without a publisher, Profile prints the comparison's text.
func TestProfileFallback(t *testing.T) {
	SetPublisher(nil)
	net, x := profiledMLP(t)
	out := captureStdout(t, func() { Profile(net, func() { net.Forward(x) }) })
	for _, want := range []string{"eager", "hybridized", "time per call", "fused: _fused_FullyConnected_relu"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
