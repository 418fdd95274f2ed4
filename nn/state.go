package nn

import (
	"strconv"
	"sync"

	"github.com/hybridgo/hybridgo/eager"
)

// sessionState is what nn keeps in each eager.State: the counters that
// name top-level blocks (net0, net1, …) and the stack of traces in
// progress. A REPL session has an eager.State of its own, so its blocks
// are named from net0 as in a new process, and its traces are its own.
type sessionState struct {
	mu       sync.Mutex
	topCount map[string]int // per block type name
	traces   []*traceState  // innermost last
}

type stateKey struct{}

func newSessionState() any { return &sessionState{topCount: map[string]int{}} }

// state returns nn's part of the current eager.State.
func state() *sessionState {
	return eager.CurrentState().Slot(stateKey{}, newSessionState).(*sessionState)
}

// topName returns the next name prefix of a top-level block of the given
// type: "net0_", then "net1_".
func topName(typeName string) string {
	st := state()
	st.mu.Lock()
	defer st.mu.Unlock()
	n := st.topCount[typeName]
	st.topCount[typeName] = n + 1
	return typeName + strconv.Itoa(n) + "_"
}
