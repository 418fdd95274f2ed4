package accel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
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
// recycled value, as ParallelRange uses): passing it then allocates nothing,
// whereas a func literal that captures variables is allocated on every
// call.
type Loop interface {
	Range(lo, hi int)
}

// funcLoop adapts a func to a Loop. A func value is a single pointer, so
// the conversion to the interface allocates nothing.
type funcLoop func(lo, hi int)

func (f funcLoop) Range(lo, hi int) { f(lo, hi) }

// How the pool hands out work. A call publishes its job in one of the
// active slots, wakes parked helpers (at most one per chunk beyond its
// own), and works on its chunks itself. Each worker (the caller, then
// each helper) owns a contiguous share of the chunks and takes them
// first, then helps with the others' shares from their ends (see
// job.work). The same worker, on the same core, then takes the same
// part of every loop of as many chunks: a layer split by output
// channels and the next by the same channels, or by the same rows, read
// what they wrote. On two threads MobileNet v2's forward took 0.98 of
// its time, ResNet-18's at batch 1 0.98; when the host exchanged cache
// lines between its cores slowly, MobileNet v2's took 0.87 of its time
// with this and the direct forward's groups of four together. Helpers scan the slots for jobs
// with unclaimed chunks. A helper that finds none spins for a short while
// before parking, because the executor runs one parallel loop after
// another and waking a parked goroutine takes longer than many of those
// loops; the spin is bounded, so an idle process does not keep a core busy.
//
// The spin outlasts the serial stretches between a network's parallel
// loops (an image bordered or split before a convolution, a small layer
// run inline): a helper parked by then started its part of the next loop
// 50 to 100 µs late. Against a spin of 50 µs, 200 µs took ResNet-18's
// forward at batch 1 on two threads to 0.96 of its time and MobileNet
// v2's to 0.92; 1 ms gained another 1%.
const (
	maxActive = 64                     // jobs that can be shared at once; more run inline
	spinTime  = 500 * time.Microsecond // how long an idle helper looks for work before parking
)

var (
	poolOnce sync.Once
	// active holds the jobs whose chunks helpers may claim.
	active [maxActive]atomic.Pointer[job]
	// helpers are the pool's goroutines, started once.
	helpers []*helperState
	// freeJobs recycles job descriptors, so that a call allocates
	// nothing. Unlike a sync.Pool it is not emptied by garbage collection.
	freeJobs = make(chan *job, maxActive)
)

// helperState is one helper goroutine's parking place.
type helperState struct {
	id     int // the worker it is in every job: 1 to Workers()-1 (the caller is 0)
	parked atomic.Bool
	wake   chan struct{} // a token wakes the helper; capacity 1
}

// getJob returns a recycled job, or a new one.
func getJob() *job {
	select {
	case j := <-freeJobs:
		return j
	default:
		return &job{done: make(chan struct{}, 1)}
	}
}

// startPool starts the Workers()-1 helper goroutines, once.
func startPool() {
	poolOnce.Do(func() {
		for range numWorkers - 1 {
			h := &helperState{id: len(helpers) + 1, wake: make(chan struct{}, 1)}
			helpers = append(helpers, h)
			go h.loop()
		}
	})
}

// loop is the life of one helper: help with whatever is published, look
// for more for spinTime, then park until a call wakes it.
func (h *helperState) loop() {
	for {
		j := findWork()
		if j == nil {
			j = spinForWork()
		}
		if j != nil {
			if !help(h, j) {
				return
			}
			continue
		}
		// Dekker-style hand-shake with ParallelLoop, which publishes its
		// job before it looks at parked: either this scan sees the job, or
		// the caller sees parked and sends a token.
		h.parked.Store(true)
		if j := findWork(); j != nil {
			h.parked.Store(false)
			if !help(h, j) {
				return
			}
			continue
		}
		<-h.wake
		h.parked.Store(false)
	}
}

// spinForWork looks for work for up to spinTime, and returns it (as
// findWork does) or nil.
func spinForWork() *job {
	start := time.Now()
	for i := 0; ; i++ {
		if j := findWork(); j != nil {
			return j
		}
		if i%16 == 15 {
			if time.Since(start) > spinTime {
				return nil
			}
			runtime.Gosched()
		}
	}
}

// findWork returns an active job with unclaimed chunks, with a reference
// taken for the caller, or nil.
func findWork() *job {
	for k := range active {
		j := active[k].Load()
		if j == nil || !j.acquire() {
			continue
		}
		if j.unclaimed() {
			return j
		}
		j.release()
	}
	return nil
}

// help works on j as worker h.id and drops the helper's reference to it.
// It reports false when a body ended the goroutine with runtime.Goexit (t.FailNow in a
// test, say); a replacement goroutine then takes over the helper's place,
// so the pool keeps its size.
func help(h *helperState, j *job) (ok bool) {
	defer func() {
		j.release()
		if !ok {
			h.parked.Store(false)
			go h.loop()
		}
	}()
	j.work(h.id)
	return true
}

// A job is one ParallelFor call: [0,n) split into chunks that the caller and
// any helpers claim one at a time, each from its own share first (see
// work).
//
// Jobs are recycled. Everyone that can still touch a job (the caller and
// each helper working on it) holds a reference, and the job goes back to
// the free list when the last one is dropped. A helper takes a reference
// only while the count is not zero (acquire), so it never revives a job
// that is being recycled; a job it finds may already be in use by a later
// call, which is fine: any published job is ready to be helped with.
//
// The design cannot deadlock, nested or not: a goroutine only ever waits for
// chunks that another goroutine has already claimed and is running, and that
// goroutine is itself only ever waiting for a job created later than this
// one, so the waits-for relation has no cycles.
type job struct {
	body    Loop
	n       int
	chunks  int
	ranges  []claimRange  // each worker's chunks not yet claimed, by worker
	pending atomic.Int64  // chunks not yet finished
	refs    atomic.Int32  // holders that may still read the job
	done    chan struct{} // receives one token when pending reaches 0

	failed   atomic.Bool // set by the first panic; later chunks are skipped
	panicMu  sync.Mutex
	panicVal any
}

// acquire takes a reference to a job that is still in use.
func (j *job) acquire() bool {
	for {
		r := j.refs.Load()
		if r == 0 {
			return false
		}
		if j.refs.CompareAndSwap(r, r+1) {
			return true
		}
	}
}

// release drops one reference; the last one returns j to the free list.
func (j *job) release() {
	if j.refs.Add(-1) == 0 {
		j.body, j.panicVal = nil, nil
		select {
		case freeJobs <- j:
		default: // enough are kept already
		}
	}
}

// workPublished is work for the caller of a published job: it takes the
// job out of its slot once every chunk is claimed, or when a body ends the
// goroutine with runtime.Goexit.
func (j *job) workPublished(slot int) {
	defer active[slot].Store(nil)
	j.work(0)
}

// A claimRange holds the chunks lo to hi-1 of one worker that nobody has
// claimed yet, as lo<<32 | hi, alone on its cache line.
type claimRange struct {
	v atomic.Uint64
	_ [56]byte
}

// claim takes the first chunk of the range (for its owner) or, with
// last, the last one (for another worker), and reports it, or -1 when
// the range is empty.
func (r *claimRange) claim(last bool) int {
	for {
		v := r.v.Load()
		lo, hi := int(v>>32), int(uint32(v))
		if lo >= hi {
			return -1
		}
		next, c := uint64(lo+1)<<32|uint64(hi), lo
		if last {
			next, c = uint64(lo)<<32|uint64(hi-1), hi-1
		}
		if r.v.CompareAndSwap(v, next) {
			return c
		}
	}
}

// unclaimed reports whether some chunk of j is not claimed yet.
func (j *job) unclaimed() bool {
	for i := range j.ranges {
		v := j.ranges[i].v.Load()
		if v>>32 < uint64(uint32(v)) {
			return true
		}
	}
	return false
}

// work claims and runs chunks as worker w until none are left: first its
// own, from the first, then the others', from their last. Each worker
// owns a contiguous share of the chunks, the same share in every loop
// of as many chunks: consecutive loops that split their data alike
// (a layer by output rows, the next by the same rows) find it in the
// cache of the core that wrote it, where a shared counter hands out
// chunks in whatever order the workers arrive.
func (j *job) work(w int) {
	own := &j.ranges[w%len(j.ranges)]
	for {
		c := own.claim(false)
		for i := 1; c < 0 && i < len(j.ranges); i++ {
			c = j.ranges[(w+i)%len(j.ranges)].claim(true)
		}
		if c < 0 {
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
	// GOMAXPROCS may have been lowered since start-up (go test -cpu 1,2).
	workers := min(numWorkers, runtime.GOMAXPROCS(0))
	if workers == 1 {
		body.Range(0, n)
		return
	}
	chunks := min(n/grain, maxChunksPerWorker*workers)
	if chunks <= 1 {
		body.Range(0, n)
		return
	}
	startPool()
	j := getJob()
	j.body, j.n, j.chunks = body, n, chunks
	if len(j.ranges) != workers {
		j.ranges = make([]claimRange, workers)
	}
	for w := range j.ranges {
		j.ranges[w].v.Store(uint64(w*chunks/workers)<<32 | uint64((w+1)*chunks/workers))
	}
	j.pending.Store(int64(chunks))
	j.failed.Store(false)
	j.refs.Store(1) // last: from here helpers may take it
	slot := publish(j)
	if slot < 0 {
		// Too many jobs are shared already: the pool is busy anyway.
		j.work(0)
	} else {
		// Wake at most one parked helper per chunk beyond the caller's own.
		wake := min(chunks-1, workers-1)
		for _, h := range helpers {
			if wake == 0 {
				break
			}
			if h.parked.Load() {
				select {
				case h.wake <- struct{}{}:
				default: // already has a token
				}
				wake--
			}
		}
		j.workPublished(slot)
		awaitToken(j)
	}
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

// RunsInline reports whether a parallel loop over n items with this grain
// runs entirely on the calling goroutine. A kernel can then call its
// loop's Range method directly on a value on its stack, skipping even the
// recycling that ParallelRange does:
//
//	l := scale[T]{x, a}
//	if RunsInline(len(x), grain) {
//		l.Range(0, len(x))
//	} else {
//		ParallelRange(len(x), grain, l)
//	}
func RunsInline(n, grain int) bool {
	return n <= max(grain, 1) || numWorkers == 1 || n/max(grain, 1) <= 1
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

// awaitToken spins for up to spinTime until j's last chunk is done. The
// helpers are usually about to finish theirs, and a caller that blocks on
// the channel instead is parked and takes long to wake.
func awaitToken(j *job) {
	start := time.Now()
	for i := 0; len(j.done) == 0; i++ {
		if i%64 == 63 {
			if time.Since(start) > spinTime {
				return
			}
			runtime.Gosched()
		}
	}
}

// publish puts j in a free active slot and returns its index, or -1 when
// all are taken.
func publish(j *job) int {
	for k := range active {
		if active[k].Load() == nil && active[k].CompareAndSwap(nil, j) {
			return k
		}
	}
	return -1
}
