package accel

import (
	"math/bits"
	"sync"
)

// Scratch memory is recycled, so that steady-state calls allocate nothing:
// slices through size-classed free lists per element type (GetScratch),
// and the operands of parallel loops through one free list per type
// (ParallelRange).
//
// The free lists are plain mutex-guarded stacks rather than sync.Pools: a
// sync.Pool is emptied by every other garbage collection and keeps one
// item per P out of reach of the others, so a goroutine that moves between
// Ps while it waits for a parallel loop would miss and allocate. A list
// keeps at most maxFree items; what it holds is bounded by the peak number
// of buffers of each size in use at once.

// maxFree bounds the items one free list keeps.
const maxFree = 64

// A freeList is a stack of recycled items.
type freeList[E any] struct {
	mu    sync.Mutex
	items []E
}

func (f *freeList[E]) get() (e E, ok bool) {
	f.mu.Lock()
	if n := len(f.items); n > 0 {
		e, ok = f.items[n-1], true
		var zero E
		f.items[n-1] = zero
		f.items = f.items[:n-1]
	}
	f.mu.Unlock()
	return e, ok
}

func (f *freeList[E]) put(e E) {
	f.mu.Lock()
	if len(f.items) < maxFree {
		f.items = append(f.items, e)
	}
	f.mu.Unlock()
}

// bufClasses holds the free lists of one element type: class c keeps *[]T
// buffers of capacity exactly 1<<c, so any buffer a class hands out fits.
type bufClasses[T Float] [bits.UintSize]freeList[*[]T]

// bufPools maps a typed nil pointer, any((*T)(nil)), to the *bufClasses[T].
var bufPools sync.Map

// float32Classes and float64Classes are the pools of the two element
// types the kernels use, found without a map lookup.
var (
	float32Classes bufClasses[float32]
	float64Classes bufClasses[float64]
)

func classesFor[T Float]() *bufClasses[T] {
	if p, ok := any(&float32Classes).(*bufClasses[T]); ok {
		return p
	}
	if p, ok := any(&float64Classes).(*bufClasses[T]); ok {
		return p
	}
	key := any((*T)(nil))
	if p, ok := bufPools.Load(key); ok {
		return p.(*bufClasses[T])
	}
	p, _ := bufPools.LoadOrStore(key, new(bufClasses[T]))
	return p.(*bufClasses[T])
}

// sizeClass is the smallest c with 1<<c >= n.
func sizeClass(n int) int { return bits.Len(uint(max(n, 1) - 1)) }

// GetScratch returns a buffer of length n with unspecified contents, from a
// pool of recycled buffers. Hand it back with PutScratch when done; in the
// steady state the pair allocates nothing.
func GetScratch[T Float](n int) *[]T {
	c := sizeClass(n)
	if bp, ok := classesFor[T]()[c].get(); ok {
		*bp = (*bp)[:n]
		return bp
	}
	s := MakeLarge[T](n, 1<<c)
	return &s
}

// PutScratch returns a buffer obtained from GetScratch to its pool. The
// caller must not use it afterwards.
func PutScratch[T Float](bp *[]T) {
	c := cap(*bp)
	if c == 0 || c&(c-1) != 0 {
		return // not from GetScratch
	}
	classesFor[T]()[sizeClass(c)].put(bp)
}

func getBuf[T Float](n int) *[]T { return GetScratch[T](n) }

func putBuf[T Float](bp *[]T) { PutScratch(bp) }

// objPools maps a typed nil pointer, any((*X)(nil)), to the
// *freeList[*X] recycling *X values.
var objPools sync.Map

func objPool[X any]() *freeList[*X] {
	key := any((*X)(nil))
	if p, ok := objPools.Load(key); ok {
		return p.(*freeList[*X])
	}
	p, _ := objPools.LoadOrStore(key, new(freeList[*X]))
	return p.(*freeList[*X])
}

// getObj returns a recycled *X with unspecified contents.
func getObj[X any]() *X {
	if x, ok := objPool[X]().get(); ok {
		return x
	}
	return new(X)
}

// putObj clears x and recycles it.
func putObj[X any](x *X) {
	var zero X
	*x = zero
	objPool[X]().put(x)
}

// GetRecycled returns a recycled *X with unspecified contents, for values
// that must live on the heap (a Loop handed to ParallelLoop, say) but need
// not be allocated per call. Hand it back with Recycle.
func GetRecycled[X any]() *X { return getObj[X]() }

// Recycle zeroes x and keeps it for a later GetRecycled. The caller must
// not use x afterwards.
func Recycle[X any](x *X) { putObj(x) }
