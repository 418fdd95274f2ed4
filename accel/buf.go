package accel

import (
	"math/bits"
	"sync"
)

// Scratch memory is recycled, so that steady-state calls allocate nothing:
// slices through size-classed sync.Pools per element type (GetScratch),
// and the operands of parallel loops through one sync.Pool per type
// (ParallelRange).

// bufClasses holds the pools of one element type: class c keeps *[]T
// buffers of capacity exactly 1<<c, so any buffer a class hands out fits.
type bufClasses [bits.UintSize]sync.Pool

// bufPools maps a typed nil pointer, any((*T)(nil)), to the *bufClasses of T.
var bufPools sync.Map

func classesFor[T Float]() *bufClasses {
	key := any((*T)(nil))
	if p, ok := bufPools.Load(key); ok {
		return p.(*bufClasses)
	}
	p, _ := bufPools.LoadOrStore(key, new(bufClasses))
	return p.(*bufClasses)
}

// sizeClass is the smallest c with 1<<c >= n.
func sizeClass(n int) int { return bits.Len(uint(max(n, 1) - 1)) }

// GetScratch returns a buffer of length n with unspecified contents, from a
// pool of recycled buffers. Hand it back with PutScratch when done; in the
// steady state the pair allocates nothing.
func GetScratch[T Float](n int) *[]T {
	c := sizeClass(n)
	if v := classesFor[T]()[c].Get(); v != nil {
		bp := v.(*[]T)
		*bp = (*bp)[:n]
		return bp
	}
	s := make([]T, n, 1<<c)
	return &s
}

// PutScratch returns a buffer obtained from GetScratch to its pool. The
// caller must not use it afterwards.
func PutScratch[T Float](bp *[]T) {
	c := cap(*bp)
	if c == 0 || c&(c-1) != 0 {
		return // not from GetScratch
	}
	classesFor[T]()[sizeClass(c)].Put(bp)
}

func getBuf[T Float](n int) *[]T { return GetScratch[T](n) }

func putBuf[T Float](bp *[]T) { PutScratch(bp) }

// objPools maps a typed nil pointer, any((*X)(nil)), to the *sync.Pool
// recycling *X values.
var objPools sync.Map

func objPool[X any]() *sync.Pool {
	key := any((*X)(nil))
	if p, ok := objPools.Load(key); ok {
		return p.(*sync.Pool)
	}
	p, _ := objPools.LoadOrStore(key, &sync.Pool{New: func() any { return new(X) }})
	return p.(*sync.Pool)
}

// getObj returns a recycled *X with unspecified contents.
func getObj[X any]() *X { return objPool[X]().Get().(*X) }

// putObj clears x and recycles it.
func putObj[X any](x *X) {
	var zero X
	*x = zero
	objPool[X]().Put(x)
}

// GetRecycled returns a recycled *X with unspecified contents, for values
// that must live on the heap (a Loop handed to ParallelLoop, say) but need
// not be allocated per call. Hand it back with Recycle.
func GetRecycled[X any]() *X { return getObj[X]() }

// Recycle zeroes x and keeps it for a later GetRecycled. The caller must
// not use x afterwards.
func Recycle[X any](x *X) { putObj(x) }
