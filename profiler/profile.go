package profiler

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// EventKind says what an Event records.
type EventKind uint8

const (
	OpEvent    EventKind = iota // one op call
	BlockEvent                  // one call of a block's Forward
	GraphEvent                  // one call of a compiled graph (inside a hybridized block's call)
)

// Event is one op call or one span (a block's or a compiled graph's
// call). Times are eager.ProfileClock nanoseconds.
type Event struct {
	Kind   EventKind
	Name   string // the op name, or the block's name
	Node   string // the MXNet node name of a compiled graph's op; "" for eager ops
	Mode   eager.ProfileMode
	Shapes []ops.Shape // the op's input shapes
	Start  int64
	End    int64
	Thread int64 // the goroutine
	Parent int   // index of the enclosing span in the Profile's events; -1 for none
	// Gap is the time before the event since the profiler's previous
	// callback on the same goroutine returned: interpreter and dispatch
	// time, code that ran between op calls. A span's TailGap is the same
	// before its end.
	Gap, TailGap int64
	// Allocated is what the op call allocated for its outputs, or what
	// a span's own code allocated (a compiled call's frame when it was
	// new, and its copied-out outputs); Planned is a compiled call's
	// memory plan in bytes, Peak what it held at once.
	Allocated, Planned, Peak int64
}

// Duration is the event's wall time.
func (e Event) Duration() time.Duration { return time.Duration(e.End - e.Start) }

// Profile is what a profiled stretch of code did: its events in the order
// they began, and aggregates of them.
type Profile struct {
	Events []Event
	paths  []string // block path of each span event
}

func newProfile(evs []Event) *Profile {
	p := &Profile{Events: evs, paths: make([]string, len(evs))}
	for i, e := range evs {
		if e.Kind != BlockEvent {
			continue
		}
		if e.Parent < 0 {
			p.paths[i] = e.Name
			continue
		}
		parent := p.Block(e.Parent)
		if parent == "" {
			p.paths[i] = e.Name
			continue
		}
		// "net0_dense0" inside "net0" reads "net0/dense0".
		last := parent[strings.LastIndexByte(parent, '/')+1:]
		p.paths[i] = parent + "/" + strings.TrimPrefix(e.Name, last+"_")
	}
	return p
}

// Block returns the path of the block that event i ran in ("net0/dense0"),
// or "" for an op called outside any block. A compiled graph's ops run in
// the hybridized block that called the graph.
func (p *Profile) Block(i int) string {
	for i >= 0 && p.Events[i].Kind != BlockEvent {
		i = p.Events[i].Parent
	}
	if i < 0 {
		return ""
	}
	return p.paths[i]
}

// Stat aggregates the calls of one op or one block.
type Stat struct {
	Name      string // op name, or block path
	Mode      string // "eager", "hybridized" or "fused"; for a block, how it ran
	Count     int
	Total     time.Duration
	Min, Max  time.Duration
	Allocated int64
	Percent   float64 // of the profile's busy time (ops and dispatch)
}

// Mean is the mean time per call.
func (s Stat) Mean() time.Duration {
	if s.Count == 0 {
		return 0
	}
	return s.Total / time.Duration(s.Count)
}

func (s *Stat) add(d time.Duration, bytes int64) {
	if s.Count == 0 || d < s.Min {
		s.Min = d
	}
	s.Max = max(s.Max, d)
	s.Count++
	s.Total += d
	s.Allocated += bytes
}

// Totals sums a profile.
type Totals struct {
	Calls      int           // top-level spans (block calls), or 1 when ops ran outside blocks
	OpCalls    int           // op calls
	OpTime     time.Duration // in op kernels (with shape inference and allocation, for eager calls)
	Dispatch   time.Duration // between op calls: interpreter, block and executor code
	Wall       time.Duration // from the first event's start to the last one's end, the profiler's own work included
	Allocated  int64         // by op calls and compiled calls
	Planned    int64         // memory plans of the compiled calls, summed over calls
	Peak       int64         // the most one call held at once (see Profile.Peak)
	FusedCalls int           // op calls that ran a fused group
}

// Totals sums the profile.
func (p *Profile) Totals() Totals {
	var t Totals
	if len(p.Events) == 0 {
		return t
	}
	first, last := p.Events[0].Start, p.Events[0].End
	for i, e := range p.Events {
		first, last = min(first, e.Start), max(last, e.End)
		t.Dispatch += time.Duration(e.Gap + e.TailGap)
		t.Allocated += e.Allocated
		t.Planned += e.Planned
		switch {
		case e.Kind == OpEvent:
			t.OpCalls++
			t.OpTime += e.Duration()
			if e.Mode == eager.ModeFused {
				t.FusedCalls++
			}
		case e.Parent < 0:
			t.Calls++
			t.Peak = max(t.Peak, p.Peak(i))
		}
	}
	if t.Calls == 0 {
		t.Calls = 1
	}
	t.Wall = time.Duration(last - first)
	return t
}

// Peak is the most memory span i held at once, by the profiler's count:
// a compiled call holds its memory plan and its copied-out outputs, and
// every array an eager op call allocates counts as held until the span
// ends (Go's collector frees it later, not at its last use).
func (p *Profile) Peak(i int) int64 {
	n := p.Events[i].Peak
	for j := i + 1; j < len(p.Events) && p.Events[j].Start <= p.Events[i].End; j++ {
		e := p.Events[j]
		if e.Parent != i {
			continue
		}
		if e.Kind == OpEvent {
			n += e.Allocated
		} else {
			n += p.Peak(j)
		}
	}
	return n
}

// Ops aggregates the op calls by op name, the most time first.
func (p *Profile) Ops() []Stat {
	var stats []Stat
	index := map[string]int{}
	busy := p.busy()
	for _, e := range p.Events {
		if e.Kind != OpEvent {
			continue
		}
		i, ok := index[e.Name]
		if !ok {
			i = len(stats)
			index[e.Name] = i
			stats = append(stats, Stat{Name: e.Name, Mode: e.Mode.String()})
		}
		stats[i].add(e.Duration(), e.Allocated)
	}
	return finish(stats, busy)
}

// Blocks aggregates the block calls by block path, the most time first.
// A block's time includes its children's.
func (p *Profile) Blocks() []Stat {
	var stats []Stat
	index := map[string]int{}
	busy := p.busy()
	for i, e := range p.Events {
		if e.Kind != BlockEvent {
			continue
		}
		path := p.paths[i]
		k, ok := index[path]
		if !ok {
			k = len(stats)
			index[path] = k
			stats = append(stats, Stat{Name: path, Mode: e.Mode.String()})
		}
		stats[k].add(e.Duration(), p.allocatedIn(i))
	}
	return finish(stats, busy)
}

// allocatedIn sums what span i and everything inside it allocated.
func (p *Profile) allocatedIn(i int) int64 {
	n := p.Events[i].Allocated
	for j := i + 1; j < len(p.Events) && p.Events[j].Start <= p.Events[i].End; j++ {
		for k := p.Events[j].Parent; k >= 0; k = p.Events[k].Parent {
			if k == i {
				n += p.Events[j].Allocated
				break
			}
		}
	}
	return n
}

func (p *Profile) busy() time.Duration {
	t := p.Totals()
	return t.OpTime + t.Dispatch
}

func finish(stats []Stat, busy time.Duration) []Stat {
	for i := range stats {
		if busy > 0 {
			stats[i].Percent = 100 * float64(stats[i].Total) / float64(busy)
		}
	}
	slices.SortStableFunc(stats, func(a, b Stat) int { return cmp.Compare(b.Total, a.Total) })
	return stats
}

// Table is the aggregate table, as mx.profiler.dumps() prints it: a
// summary line, then the ops and the blocks with their call counts and
// times (total, mean, min, max and share of the busy time) and the bytes
// they allocated.
func (p *Profile) Table() string {
	var b strings.Builder
	t := p.Totals()
	fmt.Fprintf(&b, "%s\n\n", t)
	writeStats(&b, "operator", p.Ops(), t)
	if blocks := p.Blocks(); len(blocks) > 0 {
		b.WriteByte('\n')
		writeStats(&b, "block", blocks, Totals{})
	}
	return b.String()
}

func writeStats(b *strings.Builder, title string, stats []Stat, t Totals) {
	width := len(title)
	for _, s := range stats {
		width = max(width, len(s.Name))
	}
	if t.Dispatch > 0 {
		width = max(width, len(dispatchRow))
	}
	fmt.Fprintf(b, "%-*s  %-10s %6s %10s %10s %10s %10s %6s %10s\n", width, title, "mode", "calls", "total", "mean", "min", "max", "%time", "allocated")
	for _, s := range stats {
		fmt.Fprintf(b, "%-*s  %-10s %6d %10s %10s %10s %10s %5.1f%% %10s\n", width, s.Name, s.Mode, s.Count,
			formatDuration(s.Total), formatDuration(s.Mean()), formatDuration(s.Min), formatDuration(s.Max), s.Percent, formatBytes(s.Allocated))
	}
	if t.Dispatch > 0 {
		busy := t.OpTime + t.Dispatch
		fmt.Fprintf(b, "%-*s  %-10s %6s %10s %10s %10s %10s %5.1f%% %10s\n", width, dispatchRow, "", "", formatDuration(t.Dispatch), "", "", "", 100*float64(t.Dispatch)/float64(busy), "")
	}
}

// dispatchRow names the time between op calls in the tables.
const dispatchRow = "(interpreter/dispatch)"

// String is a one-line summary: calls, op calls, time in ops and between
// them, and memory per call.
func (t Totals) String() string {
	s := fmt.Sprintf("%d call(s), %d op calls (%d fused); per call: time %s, ops %s, interpreter/dispatch %s, allocated %s, peak %s",
		t.Calls, t.OpCalls, t.FusedCalls, formatDuration((t.OpTime+t.Dispatch)/time.Duration(t.Calls)), formatDuration(t.OpTime/time.Duration(t.Calls)),
		formatDuration(t.Dispatch/time.Duration(t.Calls)), formatBytes(t.Allocated/int64(t.Calls)), formatBytes(t.Peak))
	if t.Planned > 0 {
		s += ", planned " + formatBytes(t.Planned/int64(t.Calls))
	}
	return s
}

// String is the aggregate table and the top ops as bars.
func (p *Profile) String() string {
	return p.Table() + "\ntop ops:\n" + p.Bars(topOps)
}

// Bars lists the n ops that took the most time as a bar chart for a
// terminal, with the interpreter/dispatch time as one more bar.
func (p *Profile) Bars(n int) string {
	stats := p.Ops()
	if len(stats) > n {
		stats = stats[:n]
	}
	t := p.Totals()
	if t.Dispatch > 0 {
		stats = append(stats, Stat{Name: dispatchRow, Total: t.Dispatch, Percent: 100 * float64(t.Dispatch) / float64(t.OpTime+t.Dispatch)})
		slices.SortStableFunc(stats, func(a, b Stat) int { return cmp.Compare(b.Total, a.Total) })
	}
	width := 0
	for _, s := range stats {
		width = max(width, len(s.Name))
	}
	const barWidth = 30
	var b strings.Builder
	for _, s := range stats {
		full := int(s.Percent/100*barWidth + 0.5)
		fmt.Fprintf(&b, "%-*s %s%s %5.1f%% %s\n", width, s.Name, strings.Repeat("█", full), strings.Repeat(" ", barWidth-full), s.Percent, formatDuration(s.Total))
	}
	return b.String()
}

func formatDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.1fµs", float64(d)/1e3)
	}
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}
