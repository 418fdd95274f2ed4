package accel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// numWorkers is GOMAXPROCS as seen when the package was initialised.
var numWorkers = max(1, runtime.GOMAXPROCS(0))

// Workers reports how many goroutines ParallelFor uses: GOMAXPROCS at
// start-up (the pool's helpers plus the calling goroutine).
func Workers() int { return numWorkers }

// maxChunksPerWorker bounds how finely ParallelFor splits a range. A few
// chunks per worker let fast workers take over work from slow ones without
// paying much for claiming chunks.
const maxChunksPerWorker = 4

// A Loop is the body of a parallel loop: Range runs iterations [lo, hi).
// ParallelLoop calls Range from several goroutines at once on disjoint
// ranges.
//
// A Loop is usually a pointer to a struct that holds the loop's operands
// and lives longer than the call (a field of a long-lived object, or a
// value recycled through a sync.Pool): passing it then allocates nothing,
// whereas a func literal that captures variables is allocated on every
// call.
type Loop interface {
	Range(lo, hi int)
}

// funcLoop adapts a func to a Loop. A func value is a single pointer, so
// the conversion to the interface allocates nothing.
type funcLoop func(lo, hi int)

func (f funcLoop) Range(lo, hi int) { f(lo, hi) }

var (
	poolOnce sync.Once
	// jobQueue hands jobs to idle helpers. Sends never block: when the queue
	// is full the caller simply does more of the work itself.
	jobQueue chan *job
	// jobs recycles job descriptors, so that a call allocates nothing.
	jobs = sync.Pool{New: func() any { return &job{done: make(chan struct{}, 1)} }}
)

// startPool starts the Workers()-1 helper goroutines, once.
func startPool() {
	poolOnce.Do(func() {
		jobQueue = make(chan *job, 2*numWorkers)
		for range numWorkers - 1 {
			go helper()
		}
	})
}

// helper is the loop of one pooled goroutine: it helps with whatever job
// it is handed and then waits for the next one.
func helper() {
	for j := range jobQueue {
		if !help(j) {
			return
		}
	}
}

// help works on j and drops the helper's reference to it. It reports
// false when a body ended the goroutine with runtime.Goexit (t.FailNow in a
// test, say); a replacement helper is then started so the pool keeps its
// size.
func help(j *job) (ok bool) {
	defer func() {
		j.release()
		if !ok {
			go helper()
		}
	}()
	j.work()
	return true
}

// A job is one ParallelFor call: [0,n) split into chunks that the caller and
// any helpers claim one at a time through an atomic counter.
//
// Jobs are recycled. Everyone that can still touch a job (the caller and
// each queued hand-off to a helper) holds a reference, and the job goes back
// to the pool when the last one is dropped; a helper that picks up a job
// after all its chunks are done finds nothing to claim and lets go.
//
// The design cannot deadlock, nested or not: a goroutine only ever waits for
// chunks that another goroutine has already claimed and is running, and that
// goroutine is itself only ever waiting for a job created later than this
// one, so the waits-for relation has no cycles.
type job struct {
	body    Loop
	n       int
	chunks  int
	next    atomic.Int64  // index of the next unclaimed chunk
	pending atomic.Int64  // chunks not yet finished
	refs    atomic.Int32  // holders that may still read the job
	done    chan struct{} // receives one token when pending reaches 0

	failed   atomic.Bool // set by the first panic; later chunks are skipped
	panicMu  sync.Mutex
	panicVal any
}

// release drops one reference; the last one returns j to the pool.
func (j *job) release() {
	if j.refs.Add(-1) == 0 {
		j.body, j.panicVal = nil, nil
		jobs.Put(j)
	}
}

// work claims and runs chunks until none are left.
func (j *job) work() {
	for {
		c := int(j.next.Add(1) - 1)
		if c >= j.chunks {
			return
		}
		j.runChunk(c)
	}
}

// runChunk runs chunk c, recording rather than propagating a panic so that
// it can be raised again on the goroutine that called ParallelFor.
func (j *job) runChunk(c int) {
	defer func() {
		if r := recover(); r != nil {
			j.panicMu.Lock()
			if !j.failed.Load() {
				j.panicVal = r
				j.failed.Store(true)
			}
			j.panicMu.Unlock()
		}
		if j.pending.Add(-1) == 0 {
			j.done <- struct{}{}
		}
	}()
	if j.failed.Load() {
		return
	}
	lo := c * j.n / j.chunks
	hi := (c + 1) * j.n / j.chunks
	j.body.Range(lo, hi)
}

// ParallelFor splits [0,n) into contiguous chunks of at least grain items
// and runs body on them, using a persistent pool of Workers()-1 helper
// goroutines (started lazily on first use) plus the calling goroutine.
// It returns when every chunk is done.
//
// When n <= grain, or there is only one worker, body(0, n) runs inline on
// the caller. ParallelFor is safe for concurrent use and may be called from
// inside a body: nested calls are shared with whichever helpers are idle and
// otherwise run on the calling goroutine, so they never deadlock.
//
// If body panics, the remaining unstarted chunks are skipped and the first
// panic value is raised again on the caller once all running chunks finish.
//
// ParallelFor itself allocates nothing, but a func literal that captures
// variables is allocated by its caller; ParallelLoop with a long-lived Loop
// avoids that.
func ParallelFor(n, grain int, body func(lo, hi int)) {
	ParallelLoop(n, grain, funcLoop(body))
}

// ParallelLoop is ParallelFor for a Loop: it runs body.Range on contiguous
// chunks of [0,n) of at least grain items, on the worker pool and the
// calling goroutine, and returns when all are done. It allocates nothing.
func ParallelLoop(n, grain int, body Loop) {
	if n <= 0 {
		return
	}
	grain = max(grain, 1)
	if n <= grain || numWorkers == 1 {
		body.Range(0, n)
		return
	}
	chunks := min(n/grain, maxChunksPerWorker*numWorkers)
	if chunks <= 1 {
		body.Range(0, n)
		return
	}
	startPool()
	j := jobs.Get().(*job)
	j.body, j.n, j.chunks = body, n, chunks
	j.next.Store(0)
	j.pending.Store(int64(chunks))
	j.failed.Store(false)
	j.refs.Store(1)
	// Wake at most one helper per chunk beyond the caller's own.
	for range min(chunks-1, numWorkers-1) {
		j.refs.Add(1)
		select {
		case jobQueue <- j:
		default:
			j.refs.Add(-1)
		}
	}
	j.work()
	<-j.done
	if j.failed.Load() {
		j.panicMu.Lock()
		v := j.panicVal
		j.panicMu.Unlock()
		j.release()
		panic(v)
	}
	j.release()
}

// ParallelRange is ParallelLoop for a loop body given by value: body is
// copied into a recycled value of its type, whose Range method runs the
// chunks. Unlike a func literal, which is allocated whenever it captures
// variables (always, inside a generic function), this allocates nothing
// in the steady state:
//
//	type scale[T Float] struct{ x []T; a T }
//	func (s *scale[T]) Range(lo, hi int) { ... s.x[i] *= s.a ... }
//
//	ParallelRange(len(x), 4096, scale[T]{x, a})
func ParallelRange[L any, P interface {
	*L
	Loop
}](n, grain int, body L) {
	if n <= 0 {
		return
	}
	l := getObj[L]()
	*l = body
	defer putObj(l)
	ParallelLoop(n, grain, P(l))
}
