package profiler

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
)

// Hybridizable is a block that runs eagerly or hybridized:
// nn.HybridBlock, and every compiled struct that embeds it (a block type
// defined in a cell goes through HybridizableOf).
type Hybridizable interface {
	Hybridize(opts ...nn.HybridizeOptions)
	Hybridized() bool
}

// HybridizableOf returns v as a Hybridizable: v itself when its type has
// the methods, else the nn.HybridBlock that v, a block type defined in
// interpreted Go, embeds (nn.HybridBlockOf); nil when v is neither. The
// REPL's :profile and display.Profile take their block through it.
func HybridizableOf(v any) Hybridizable {
	if h, ok := v.(Hybridizable); ok {
		return h
	}
	if b := nn.HybridBlockOf(v); b != nil {
		return b
	}
	return nil
}

// Comparison is the profile of the same calls run eagerly and hybridized.
type Comparison struct {
	Eager, Hybridized *Profile
}

// DefaultRuns is how many profiled runs the REPL's :profile and the
// notebook's display.Profile make in each mode, after one unprofiled run.
const DefaultRuns = 3

// Modes profiles f, a call of net, eagerly and then hybridized. In each
// mode f runs once unprofiled first (a hybridized block's first call
// traces and compiles), then runs times profiled. net is left as it
// was: hybridized with opts, keeping the graph the profiled calls
// compiled, or not hybridized.
func Modes(net Hybridizable, runs int, f func(), opts ...nn.HybridizeOptions) *Comparison {
	if !net.Hybridized() {
		defer net.Hybridize(nn.HybridizeOptions{Off: true})
	}
	profile := func() *Profile {
		f()
		return Run(func() {
			for range runs {
				f()
			}
		})
	}
	var c Comparison
	net.Hybridize(nn.HybridizeOptions{Off: true})
	c.Eager = profile()
	net.Hybridize(opts...)
	c.Hybridized = profile()
	return &c
}

// Rows are the comparison's lines: a name, the eager value and the
// hybridized one, per call.
func (c *Comparison) Rows() [][3]string {
	e, h := c.Eager.Totals(), c.Hybridized.Totals()
	per := func(t Totals, d time.Duration) string { return formatDuration(d / time.Duration(t.Calls)) }
	perB := func(t Totals, n int64) string { return formatBytes(n / int64(t.Calls)) }
	ops := func(t Totals) string {
		s := fmt.Sprint(t.OpCalls / t.Calls)
		if t.FusedCalls > 0 {
			s += fmt.Sprintf(" (%d fused)", t.FusedCalls/t.Calls)
		}
		return s
	}
	return [][3]string{
		{"calls profiled", fmt.Sprint(e.Calls), fmt.Sprint(h.Calls)},
		{"time per call", per(e, e.OpTime+e.Dispatch), per(h, h.OpTime+h.Dispatch)},
		{"op calls per call", ops(e), ops(h)},
		{"time in ops", per(e, e.OpTime), per(h, h.OpTime)},
		{"interpreter/dispatch", per(e, e.Dispatch), per(h, h.Dispatch)},
		{"allocated per call", perB(e, e.Allocated), perB(h, h.Allocated)},
		{"planned per call", perB(e, e.Planned), perB(h, h.Planned)},
		{"peak per call", formatBytes(e.Peak), formatBytes(h.Peak)},
	}
}

// Fused lists the fused groups the hybridized calls ran, by op name.
func (c *Comparison) Fused() []string {
	var names []string
	for _, e := range c.Hybridized.Events {
		if e.Kind == OpEvent && e.Mode == eager.ModeFused && !slices.Contains(names, e.Name) {
			names = append(names, e.Name)
		}
	}
	return names
}

// String shows the two modes side by side, then the top ops of each as
// bars.
func (c *Comparison) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %14s %14s\n", "", "eager", "hybridized")
	for _, r := range c.Rows() {
		fmt.Fprintf(&b, "%-22s %14s %14s\n", r[0], r[1], r[2])
	}
	if f := c.Fused(); len(f) > 0 {
		fmt.Fprintf(&b, "fused: %s\n", strings.Join(f, ", "))
	}
	fmt.Fprintf(&b, "\neager, top ops:\n%s\nhybridized, top ops:\n%s", c.Eager.Bars(topOps), c.Hybridized.Bars(topOps))
	return b.String()
}

// topOps is how many ops the bar lists show.
const topOps = 8
