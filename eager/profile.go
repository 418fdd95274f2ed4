package eager

import (
	"sync/atomic"
	"time"

	"github.com/hybridgo/hybridgo/ops"
)

// ProfileMode says how an op call or a block call ran.
type ProfileMode uint8

const (
	ModeEager      ProfileMode = iota // op by op, through Exec
	ModeHybridized                    // a step of a compiled graph
	ModeFused                         // a compiled graph's step that runs a fused group of ops
)

func (m ProfileMode) String() string {
	switch m {
	case ModeHybridized:
		return "hybridized"
	case ModeFused:
		return "fused"
	}
	return "eager"
}

// OpCall is one op call as a Profiler sees it. Inputs are valid only
// during the Profiler's Op method.
type OpCall struct {
	Op     string // the MXNet op name: "Convolution", "_fused_elemwise"
	Node   string // the MXNet node name in a compiled graph ("net0_conv0_fwd"); "" for eager calls
	Mode   ProfileMode
	Inputs []ops.Value
	// Start and End are ProfileClock readings around the call; Bytes is
	// what the call allocated for its outputs.
	Start, End int64
	Bytes      int64
}

// A Profiler sees every op call, eager (Exec) and compiled (a graph's
// steps), and the calls of blocks and of compiled graphs around them,
// while it is installed with SetProfiler. Its methods run on the
// goroutine that makes the call.
type Profiler interface {
	Op(c *OpCall)
	// Begin opens a span, a block call or a compiled graph's call, that
	// the op calls until the matching End belong to.
	Begin(name string, mode ProfileMode)
	// End closes the innermost span with what its own code (not its op
	// calls) did with memory.
	End(m SpanMemory)
}

// GraphCall is the span name of a compiled graph's call.
const GraphCall = "(graph)"

// SpanMemory is what a span's own code did with memory: a compiled call
// allocates its planned buffers when it has none to reuse, and copies
// its outputs out. Peak is what it held at once: the plan and the copies.
type SpanMemory struct {
	Allocated, Planned, Peak int64
}

type profilerBox struct{ p Profiler }

var activeProfiler atomic.Pointer[profilerBox]

// SetProfiler installs p to see every op call from now on, or, with nil,
// stops profiling. The profiler package installs one; with none
// installed the cost of profiling is one atomic load per op call.
func SetProfiler(p Profiler) {
	if p == nil {
		activeProfiler.Store(nil)
		return
	}
	activeProfiler.Store(&profilerBox{p})
}

// ActiveProfiler returns the installed Profiler, or nil.
func ActiveProfiler() Profiler {
	if b := activeProfiler.Load(); b != nil {
		return b.p
	}
	return nil
}

var profileEpoch = time.Now()

// ProfileClock returns monotonic nanoseconds since the program started:
// the clock of OpCall's Start and End.
func ProfileClock() int64 { return int64(time.Since(profileEpoch)) }

// ValueBytes returns the size of the data of vs in bytes.
func ValueBytes(vs ...ops.Value) int64 {
	var n int64
	for _, v := range vs {
		n += int64(v.Shape.Size()) * int64(v.DType.Size())
	}
	return n
}
