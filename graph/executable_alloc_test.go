//go:build !race

// The race detector drops pooled buffers at random, so allocation is
// measured without it.

package graph_test

import (
	"runtime"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
)

// bytesPerCall is the heap bytes one call of fn allocates, on average.
func bytesPerCall(fn func()) uint64 {
	fn()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 20
	for i := 0; i < n; i++ {
		fn()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / n
}

// A call outside Record allocates hardly anything, with StaticAlloc or
// without (its frame is reused), and so does one inside Record whose
// inputs need no gradient (the tape does not record it); one on the tape
// keeps its own values for the backward.
func TestCallOutsideRecordAllocatesLittle(t *testing.T) {
	x := eager.RandomNormal(64, 784)
	var bytes [2][3]uint64 // [static][outside, inside Record untaped, on the tape]
	for i, static := range []bool{false, true} {
		params := mlpParams()
		call := mlpCall(t, x, params, false, graph.CompileOptions{StaticAlloc: static})
		bytes[i][0] = bytesPerCall(func() { call() })
		bytes[i][1] = bytesPerCall(func() { eager.Record(func() { call() }) })
		for _, p := range params {
			p.AttachGrad()
		}
		call = mlpCall(t, x, params, true, graph.CompileOptions{StaticAlloc: static})
		bytes[i][2] = bytesPerCall(func() { eager.Record(func() { call() }) })
	}
	const hidden = 64 * 128 * 4 // one 64x128 float32 activation
	// Pooled kernel scratch is refilled after a collection, so the bound
	// is loose: less than the one activation a call without buffers of
	// its own would allocate.
	if bytes[1][0] >= hidden {
		t.Errorf("a StaticAlloc call outside Record allocates %d bytes, want less than %d", bytes[1][0], hidden)
	}
	if bytes[0][0] >= hidden {
		t.Errorf("a call outside Record allocates %d bytes: its frame should be reused, not made again (%d inside Record)", bytes[0][0], bytes[0][1])
	}
	for i := range bytes {
		if bytes[i][1] >= hidden {
			t.Errorf("static=%v: a call inside Record whose inputs need no gradient allocates %d bytes, want less than %d", i == 1, bytes[i][1], hidden)
		}
		if bytes[i][2] < hidden {
			t.Errorf("static=%v: a call on the tape allocates %d bytes: with no Backward to release it, it must keep its own values", i == 1, bytes[i][2])
		}
	}
	t.Logf("bytes per call [static][outside, untaped, taped]: %v", bytes)
}
