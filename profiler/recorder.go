package profiler

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// recorder is the eager.Profiler that fills a Profile: it appends one
// event per op call and per span, and keeps per goroutine the spans open
// there and when its last callback returned.
type recorder struct {
	mu      sync.Mutex
	events  []Event
	threads []*thread // few: a linear search beats a map
}

type thread struct {
	id   int64
	open []int // indexes of the open spans, innermost last
	last int64 // ProfileClock when the previous callback returned; 0 before the first
}

func newRecorder() *recorder { return &recorder{events: make([]Event, 0, 1024)} }

// threadOf returns the state of the calling goroutine.
func (r *recorder) threadOf(id int64) *thread {
	for _, t := range r.threads {
		if t.id == id {
			return t
		}
	}
	t := &thread{id: id}
	r.threads = append(r.threads, t)
	return t
}

// gap is the time since the thread's previous callback returned: what
// ran between two op calls that was no op and no profiling.
func (t *thread) gap(now int64) int64 {
	if t.last == 0 || now < t.last {
		return 0
	}
	return now - t.last
}

func (t *thread) parent() int {
	if n := len(t.open); n > 0 {
		return t.open[n-1]
	}
	return -1
}

func (r *recorder) Op(c *eager.OpCall) {
	g := goid()
	shapes := make([]ops.Shape, len(c.Inputs))
	for i, v := range c.Inputs {
		shapes[i] = v.Shape.Clone()
	}
	r.mu.Lock()
	t := r.threadOf(g)
	r.events = append(r.events, Event{
		Kind: OpEvent, Name: c.Op, Node: c.Node, Mode: c.Mode, Shapes: shapes,
		Start: c.Start, End: c.End, Allocated: c.Bytes, Thread: g, Parent: t.parent(), Gap: t.gap(c.Start),
	})
	t.last = eager.ProfileClock()
	r.mu.Unlock()
}

func (r *recorder) Begin(name string, mode eager.ProfileMode) {
	now := eager.ProfileClock()
	g := goid()
	kind := BlockEvent
	if name == eager.GraphCall {
		kind = GraphEvent
	}
	r.mu.Lock()
	t := r.threadOf(g)
	r.events = append(r.events, Event{Kind: kind, Name: name, Mode: mode, Start: now, End: -1, Thread: g, Parent: t.parent(), Gap: t.gap(now)})
	t.open = append(t.open, len(r.events)-1)
	t.last = eager.ProfileClock()
	r.mu.Unlock()
}

func (r *recorder) End(m eager.SpanMemory) {
	now := eager.ProfileClock()
	g := goid()
	r.mu.Lock()
	t := r.threadOf(g)
	if n := len(t.open); n > 0 {
		e := &r.events[t.open[n-1]]
		e.End, e.Allocated, e.Planned, e.Peak = now, m.Allocated, m.Planned, m.Peak
		e.TailGap = t.gap(now)
		t.open = t.open[:n-1]
	}
	t.last = eager.ProfileClock()
	r.mu.Unlock()
}

// profile returns the events so far as a Profile, closing the spans
// still open (a call that panicked) at the last event's end.
func (r *recorder) profile() *Profile {
	r.mu.Lock()
	defer r.mu.Unlock()
	evs := append([]Event(nil), r.events...)
	var last int64
	for _, e := range evs {
		last = max(last, e.End)
	}
	for i := range evs {
		if evs[i].End < 0 {
			evs[i].End = last
		}
	}
	return newProfile(evs)
}

// goid returns the id of the calling goroutine, read from the first line
// of its stack trace ("goroutine 7 [running]:"). Go has no cheaper way;
// it runs outside the timed part of every call.
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseInt(string(b), 10, 64)
	return id
}
