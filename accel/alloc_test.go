package accel

import (
	"sync/atomic"
	"testing"
)

// warmUp runs fn twice: the first calls start the pool and fill the
// recycling lists.
func warmUp(fn func()) {
	fn()
	fn()
}

// sumLoop adds up the lengths of the chunks it runs.
type sumLoop struct{ total atomic.Int64 }

func (s *sumLoop) Range(lo, hi int) { s.total.Add(int64(hi - lo)) }

// scaleLoop multiplies x by a; ParallelRange copies it by value.
type scaleLoop[T Float] struct {
	x []T
	a T
}

func (s *scaleLoop[T]) Range(lo, hi int) {
	for i := lo; i < hi; i++ {
		s.x[i] *= s.a
	}
}

func scaleAll[T Float](x []T, a T) { ParallelRange(len(x), 16, scaleLoop[T]{x, a}) }

func TestParallelNoAllocs(t *testing.T) {
	var s sumLoop
	var sink atomic.Int64
	f := func(lo, hi int) { sink.Add(int64(hi - lo)) } // captures, but made once
	x := make([]float32, 1000)
	for i := range x {
		x[i] = 1
	}
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"ParallelLoop", func() { ParallelLoop(1000, 1, &s) }},
		{"ParallelLoop inline", func() { ParallelLoop(10, 100, &s) }},
		{"ParallelFor", func() { ParallelFor(1000, 1, f) }},
		{"ParallelRange generic", func() { scaleAll(x, 1) }},
	} {
		warmUp(c.fn) // start the pool, fill the recycling pools
		if n := testing.AllocsPerRun(200, c.fn); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", c.name, n)
		}
	}
	// Each loop ran 2 warm-up calls and AllocsPerRun's 1+200.
	if want := int64(1000*203 + 10*203); s.total.Load() != want {
		t.Errorf("the loop covered %d items, want %d", s.total.Load(), want)
	}
	if x[999] != 1 {
		t.Errorf("x[999] = %v after scaling by 1", x[999])
	}
}

func TestGemmNoAllocs(t *testing.T) {
	for _, n := range []int{8, 100, 300} { // inline and parallel paths
		a := make([]float32, n*n)
		b := make([]float32, n*n)
		c := make([]float32, n*n)
		for i := range a {
			a[i], b[i] = 1, 2
		}
		run := func() { Gemm(false, true, n, n, n, 1, a, n, b, n, 0, c, n) }
		warmUp(run)
		if allocs := testing.AllocsPerRun(20, run); allocs != 0 {
			t.Errorf("Gemm n=%d: %v allocations per call, want 0", n, allocs)
		}
		if want := float32(2 * n); c[n*n-1] != want {
			t.Errorf("Gemm n=%d: c[last] = %v, want %v", n, c[n*n-1], want)
		}
	}
}

func TestScratchReuse(t *testing.T) {
	bp := GetScratch[float64](100)
	if len(*bp) != 100 || cap(*bp) != 128 {
		t.Fatalf("GetScratch(100): len %d cap %d, want 100 and 128", len(*bp), cap(*bp))
	}
	PutScratch(bp)
	if n := testing.AllocsPerRun(100, func() { PutScratch(GetScratch[float64](70)) }); n != 0 {
		t.Errorf("GetScratch/PutScratch: %v allocations, want 0", n)
	}
}

func TestConvPoolNoAllocs(t *testing.T) {
	g := ConvGeom{Channels: 6, InH: 12, InW: 12, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1}
	img := make([]float32, 6*12*12)
	col := make([]float32, 6*25*8*8)
	packed := make([]float32, max(PackedBLen[float32](150, 64), PackedBLen[float32](64, 150)))
	dw := make([]float32, 16*150)
	pg := PoolGeom{Planes: 64, InH: 24, InW: 24, OutH: 12, OutW: 12, KernelH: 2, KernelW: 2, StrideH: 2, StrideW: 2}
	pin := make([]float32, 64*24*24)
	pout := make([]float32, 64*12*12)
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"Im2col", func() { Im2col(g, img, col) }},
		{"Col2im", func() { Col2im(g, col, img) }},
		{"Col2imSet", func() { Col2imSet(g, col, img) }},
		{"Im2colPacked", func() { Im2colPacked(g, img, packed) }},
		{"Im2colPackedT", func() { Im2colPackedT(g, img, packed) }},
		{"ConvWeightGradDirect", func() { ConvWeightGradDirect(g, 16, 1, img, len(img), col[:16*64], 16*64, dw) }},
		{"MaxPool", func() { MaxPool(pg, pin, pout) }},
		{"MaxPoolBackward", func() { MaxPoolBackward(pg, pin, pout, pin) }},
		{"AvgPool", func() { AvgPool(pg, pin, pout, false, false) }},
		{"Axpy", func() { Axpy(1, pin, pin) }},
	} {
		warmUp(c.fn)
		if n := testing.AllocsPerRun(50, c.fn); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", c.name, n)
		}
	}
}
