package eager

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// State is what running code reads besides its arguments: the autograd
// recording and training flags, the random generator behind the random
// ops, and one slot per upper package for its own state (nn keeps its
// block-name counters and trace stack there, graph the tracer that names
// symbols built outside a trace). A program has one, DefaultState; a REPL
// session makes its own with NewState and makes it current with UseState
// while its cells run, so that two sessions in one process do not see
// each other's modes, random streams or names.
type State struct {
	recording, training atomic.Bool

	rngMu sync.Mutex
	rng   *rand.Rand

	slots sync.Map // a package's private key -> its state
}

// NewState returns a fresh state, as a new process starts: recording and
// training off, the random generator seeded with 0, no names taken.
func NewState() *State { return &State{rng: newRand(0)} }

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

var (
	defaultState = NewState()
	current      atomic.Pointer[State]
)

func init() { current.Store(defaultState) }

// DefaultState returns the process's state: the current one unless
// UseState made another current.
func DefaultState() *State { return defaultState }

// CurrentState returns the state that ops, blocks and tracers read now.
func CurrentState() *State { return current.Load() }

// UseState makes s the current state for the whole process and returns a
// function that makes the previous one current again. Calls nest. The
// current state is one per process, not per goroutine: code running
// beside the caller (a goroutine it started earlier) sees s too, so
// callers that switch states, such as REPL sessions, must not run at the
// same time.
func UseState(s *State) (restore func()) {
	prev := current.Swap(s)
	return func() { current.Store(prev) }
}

// Slot returns the value that key holds in s, storing newValue() first
// when there is none. Upper packages keep their per-state values here
// under a key of an unexported type, as context.Context values are kept,
// and look them up in the current state.
func (s *State) Slot(key any, newValue func() any) any {
	if v, ok := s.slots.Load(key); ok {
		return v
	}
	v, _ := s.slots.LoadOrStore(key, newValue())
	return v
}

// LockRand hands out the current state's random generator, behind the
// random ops, so that other executors (a graph's) draw from the same
// seeded stream; call unlock when done.
func LockRand() (r *rand.Rand, unlock func()) {
	s := CurrentState()
	s.rngMu.Lock()
	return s.rng, s.rngMu.Unlock
}

// Seed resets the current state's random generator, behind the random ops
// and the random creation functions, so that runs repeat; MXNet's
// mx.random.seed.
func Seed(seed uint64) {
	s := CurrentState()
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	s.rng = newRand(seed)
}
