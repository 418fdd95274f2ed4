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

var (
	poolOnce sync.Once
	// jobQueue hands jobs to idle helpers. Sends never block: when the queue
	// is full the caller simply does more of the work itself.
	jobQueue chan *job
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
	exited := true
	defer func() {
		// A body that calls runtime.Goexit (t.FailNow in a test, say) ends
		// this goroutine; start a replacement so the pool keeps its size.
		if exited {
			go helper()
		}
	}()
	for j := range jobQueue {
		j.work()
	}
	exited = false
}

// A job is one ParallelFor call: [0,n) split into chunks that the caller and
// any helpers claim one at a time through an atomic counter.
//
// The design cannot deadlock, nested or not: a goroutine only ever waits for
// chunks that another goroutine has already claimed and is running, and that
// goroutine is itself only ever waiting for a job created later than this
// one, so the waits-for relation has no cycles.
type job struct {
	body    func(lo, hi int)
	n       int
	chunks  int
	next    atomic.Int64 // index of the next unclaimed chunk
	pending atomic.Int64 // chunks not yet finished
	done    chan struct{}

	failed   atomic.Bool // set by the first panic; later chunks are skipped
	panicMu  sync.Mutex
	panicVal any
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
			close(j.done)
		}
	}()
	if j.failed.Load() {
		return
	}
	lo := c * j.n / j.chunks
	hi := (c + 1) * j.n / j.chunks
	j.body(lo, hi)
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
func ParallelFor(n, grain int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	grain = max(grain, 1)
	if n <= grain || numWorkers == 1 {
		body(0, n)
		return
	}
	chunks := min(n/grain, maxChunksPerWorker*numWorkers)
	if chunks <= 1 {
		body(0, n)
		return
	}
	startPool()
	j := &job{body: body, n: n, chunks: chunks, done: make(chan struct{})}
	j.pending.Store(int64(chunks))
	// Wake at most one helper per chunk beyond the caller's own.
	for range min(chunks-1, numWorkers-1) {
		select {
		case jobQueue <- j:
		default:
		}
	}
	j.work()
	<-j.done
	if j.failed.Load() {
		j.panicMu.Lock()
		v := j.panicVal
		j.panicMu.Unlock()
		panic(v)
	}
}
