package display

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/profiler"
	"github.com/hybridgo/hybridgo/viz"
)

// Profile runs f, a call of net such as func() { net.Forward(x) },
// eagerly and hybridized (profiler.Modes, with profiler.DefaultRuns
// profiled runs in each mode) and displays the comparison: the two modes
// side by side, their top ops and a timeline of one call in each (see
// Render). net is a hybrid block, compiled or defined in a cell
// (profiler.HybridizableOf); it is left hybridized with opts, or not, as
// it was. Profile panics when net is not a hybrid block.
func Profile(net any, f func(), opts ...nn.HybridizeOptions) {
	h := profiler.HybridizableOf(net)
	if h == nil {
		panic(fmt.Sprintf("display.Profile: %T is not a hybrid block (one that embeds nn.HybridBlock)", net))
	}
	Show(profiler.Modes(h, profiler.DefaultRuns, f, opts...))
}

// comparisonBundle shows a comparison: its String as text; in HTML the
// table of the two modes, the fused groups, the top ops of each and the
// timeline of one call in each mode, interactive over its SVG.
func comparisonBundle(c *profiler.Comparison) Bundle {
	var h strings.Builder
	h.WriteString(`<div class="hybridgo-profile">` + "\n")
	h.WriteString(`<table style="font-family:monospace"><tr><th></th><th>eager</th><th>hybridized</th></tr>` + "\n")
	for _, r := range c.Rows() {
		fmt.Fprintf(&h, `<tr><td style="text-align:left">%s</td><td>%s</td><td>%s</td></tr>`+"\n", esc(r[0]), esc(r[1]), esc(r[2]))
	}
	h.WriteString("</table>\n")
	if f := c.Fused(); len(f) > 0 {
		fmt.Fprintf(&h, "<p>fused: <code>%s</code></p>\n", esc(strings.Join(f, ", ")))
	}
	h.WriteString(`<div style="display:flex;flex-wrap:wrap;gap:24px">` + "\n")
	topOpsHTML(&h, "eager, top ops", c.Eager)
	topOpsHTML(&h, "hybridized, top ops", c.Hybridized)
	h.WriteString("</div>\n")

	var t viz.Timeline
	t.Title = "one call, eager and hybridized"
	addCall(&t, "eager", c.Eager)
	addCall(&t, "hybridized", c.Hybridized)
	return timelineBundle(c.String(), &h, t)
}

// profileBundle shows one profile: its String as text; in HTML its
// summary, top ops and the timeline of its last call.
func profileBundle(p *profiler.Profile) Bundle {
	var h strings.Builder
	h.WriteString(`<div class="hybridgo-profile">` + "\n")
	fmt.Fprintf(&h, "<p>%s</p>\n", esc(p.Totals().String()))
	topOpsHTML(&h, "top ops", p)
	var t viz.Timeline
	t.Title = "one call"
	addCall(&t, "", p)
	return timelineBundle(p.String(), &h, t)
}

// timelineBundle finishes a profile's bundle: the timeline as SVG, and
// in the HTML begun in h, as an interactive chart over the SVG.
func timelineBundle(text string, h *strings.Builder, t viz.Timeline) Bundle {
	svg := string(viz.TimelineSVG(t, 900))
	chart := svg
	if page, err := viz.TimelineHTML(t, viz.HTMLOptions{AssetsHost: EchartsHost}); err == nil {
		if e, err := EmbedChart(page, svg); err == nil {
			chart = e
		}
	}
	h.WriteString(`<div style="margin-top:16px">` + chart + "</div>\n</div>")
	return Bundle{MIMEText: text, MIMEHTML: h.String(), MIMESVG: svg}
}

// topOpsHTML writes the ops that took the most time, with the
// interpreter/dispatch time, as a table with a bar for each share.
func topOpsHTML(h *strings.Builder, title string, p *profiler.Profile) {
	stats := p.Ops()
	if len(stats) > topOps {
		stats = stats[:topOps]
	}
	t := p.Totals()
	fmt.Fprintf(h, `<table style="font-family:monospace"><caption>%s</caption><tr><th>op</th><th>mode</th><th>calls</th><th>total</th><th colspan="2">%%time</th></tr>`+"\n", esc(title))
	row := func(name, mode string, calls int, total time.Duration, percent float64) {
		n := ""
		if calls > 0 {
			n = fmt.Sprint(calls)
		}
		fmt.Fprintf(h, `<tr><td style="text-align:left">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.1f%%</td>`+
			`<td style="width:120px"><div style="background:#4c78a8;height:10px;width:%.0f%%"></div></td></tr>`+"\n",
			esc(name), esc(mode), n, duration(total), percent, percent)
	}
	for _, s := range stats {
		row(s.Name, s.Mode, s.Count, s.Total, s.Percent)
	}
	if busy := t.OpTime + t.Dispatch; t.Dispatch > 0 {
		row("(interpreter/dispatch)", "", 0, t.Dispatch, 100*float64(t.Dispatch)/float64(busy))
	}
	h.WriteString("</table>\n")
}

// topOps is how many ops the HTML lists, as the text's bar lists.
const topOps = 8

// addCall adds the last top-level call of p to t (every event, when p's
// ops ran outside any block), on lanes named after mode ("eager",
// "eager ›", "eager ››" for the nesting depths); an empty mode names
// them after the call's own mode. The call is laid out on its busy
// time: each op and each stretch of interpreter/dispatch time (Event.Gap
// and TailGap) as long as it took, one after the other, so that the
// profiler's own bookkeeping between them is left out and the picture
// adds up to the table's time per call.
func addCall(t *viz.Timeline, mode string, p *profiler.Profile) {
	evs := p.Events
	root := -1
	for i, e := range evs {
		if e.Parent < 0 && e.Kind != profiler.OpEvent {
			root = i
		}
	}
	if root >= 0 && mode == "" {
		mode = evs[root].Mode.String()
	}
	// The call's events, by parent (-1 for the top).
	children := map[int][]int{}
	var top []int
	for i, e := range evs {
		switch {
		case i == root, root < 0 && e.Parent < 0:
			top = append(top, i)
		case root < 0 || inCall(evs, e.Parent, root):
			children[e.Parent] = append(children[e.Parent], i)
		}
	}
	base := len(t.Lanes)
	lane := func(d int) int {
		for len(t.Lanes) <= base+d {
			t.Lanes = append(t.Lanes, strings.TrimSpace(mode+" "+strings.Repeat("›", len(t.Lanes)-base)))
		}
		return base + d
	}
	us := func(ns int64) float64 { return float64(ns) / 1e3 }
	// place lays out event i at depth d from time at (ns) and returns
	// when it ends.
	var place func(i, d int, at int64) int64
	place = func(i, d int, at int64) int64 {
		e := evs[i]
		start := at + e.Gap
		if e.Gap > 0 {
			t.Spans = append(t.Spans, dispatchSpan(lane(d), us(at), us(start), e.Gap))
		}
		end := start + int64(e.Duration())
		if e.Kind != profiler.OpEvent {
			end = start
			for _, c := range children[i] {
				end = place(c, d+1, end)
			}
			if e.TailGap > 0 {
				t.Spans = append(t.Spans, dispatchSpan(lane(d+1), us(end), us(end+e.TailGap), e.TailGap))
				end += e.TailGap
			}
		}
		t.Spans = append(t.Spans, viz.Span{Name: e.Name, Kind: spanKind(e), Lane: lane(d), Start: us(start), End: us(end), Tip: spanTip(p, i)})
		return end
	}
	var at int64
	for _, i := range top {
		at = place(i, 0, at)
	}
}

// inCall reports whether span i lies inside span root.
func inCall(evs []profiler.Event, i, root int) bool {
	for ; i >= 0; i = evs[i].Parent {
		if i == root {
			return true
		}
	}
	return false
}

// dispatchKind is the timeline's kind for the time between op calls,
// drawn in dispatchColor.
const (
	dispatchKind  = "interpreter/dispatch"
	dispatchColor = "#7f7f7f"
)

func dispatchSpan(lane int, start, end float64, ns int64) viz.Span {
	return viz.Span{Name: "", Kind: dispatchKind, Color: dispatchColor, Lane: lane, Start: start, End: end,
		Tip: "interpreter/dispatch: " + duration(time.Duration(ns)) + "\ncode between op calls: the interpreter, block and executor code"}
}

// spanKind colours an event: "block" for a block's or a compiled
// graph's call, else the op's kind ("fused" for a fused group).
func spanKind(e profiler.Event) string {
	switch {
	case e.Kind != profiler.OpEvent:
		return "block"
	case e.Mode == eager.ModeFused:
		return "fused"
	}
	return viz.OpKind(e.Name)
}

// spanTip describes event i: what it is, where it ran, how long it took
// and what it allocated.
func spanTip(p *profiler.Profile, i int) string {
	e := p.Events[i]
	lines := []string{e.Name + " (" + e.Mode.String() + ")"}
	if e.Node != "" {
		lines = append(lines, "node "+e.Node)
	}
	if b := p.Block(i); b != "" && e.Kind == profiler.OpEvent {
		lines = append(lines, "in "+b)
	}
	if len(e.Shapes) > 0 {
		s := make([]string, len(e.Shapes))
		for k, sh := range e.Shapes {
			s[k] = sh.String()
		}
		lines = append(lines, "inputs "+strings.Join(s, ", "))
	}
	lines = append(lines, "time "+duration(e.Duration()))
	if e.Allocated > 0 {
		lines = append(lines, fmt.Sprintf("allocated %d B", e.Allocated))
	}
	if e.Planned > 0 {
		lines = append(lines, fmt.Sprintf("planned %d B", e.Planned))
	}
	return strings.Join(lines, "\n")
}

// duration rounds d for reading: to 0.1µs below a millisecond, to 1µs
// above.
func duration(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(100 * time.Nanosecond).String()
	}
	return d.Round(time.Microsecond).String()
}

func esc(s string) string { return html.EscapeString(s) }
