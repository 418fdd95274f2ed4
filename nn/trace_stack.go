package nn

import (
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// The traces in progress form a stack in nn's part of the current
// eager.State (see state.go): a block traced inside another's trace
// pushes its own, and a parameter met during a trace becomes one
// variable of that trace, however many times the forward uses it.

func pushTrace(ts *traceState) {
	st := state()
	st.mu.Lock()
	st.traces = append(st.traces, ts)
	st.mu.Unlock()
}

func popTrace(ts *traceState) {
	st := state()
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := len(st.traces) - 1; i >= 0; i-- {
		if st.traces[i] == ts {
			st.traces = append(st.traces[:i], st.traces[i+1:]...)
			return
		}
	}
}

func currentTrace() *traceState {
	st := state()
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.traces) == 0 {
		return nil
	}
	return st.traces[len(st.traces)-1]
}

// traceParam returns the variable standing for p in the trace of t.
func traceParam(t *graph.Tracer, p *Parameter) ops.Tensor {
	st := state()
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := len(st.traces) - 1; i >= 0; i-- {
		ts := st.traces[i]
		if ts.t != t {
			continue
		}
		v, ok := ts.vars[p]
		if !ok {
			v = p.Var()
			ts.vars[p] = v
		}
		return v
	}
	return p.Var()
}
