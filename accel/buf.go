package accel

import "sync"

// Scratch buffers (packed panels of Gemm) are recycled through one sync.Pool
// per element type, so that steady-state calls allocate nothing large.

// bufPools maps a typed nil pointer, any((*T)(nil)), to the *sync.Pool
// holding *[]T buffers.
var bufPools sync.Map

func poolFor[T Float]() *sync.Pool {
	key := any((*T)(nil))
	if p, ok := bufPools.Load(key); ok {
		return p.(*sync.Pool)
	}
	p, _ := bufPools.LoadOrStore(key, new(sync.Pool))
	return p.(*sync.Pool)
}

// getBuf returns a buffer of length n with unspecified contents. Return it
// with putBuf when done.
func getBuf[T Float](n int) *[]T {
	if v := poolFor[T]().Get(); v != nil {
		bp := v.(*[]T)
		if cap(*bp) >= n {
			*bp = (*bp)[:n]
			return bp
		}
	}
	s := make([]T, n)
	return &s
}

func putBuf[T Float](bp *[]T) { poolFor[T]().Put(bp) }
