package accel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// naiveGemm is the reference: a direct triple loop in float64.
func naiveGemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	for i := range m {
		for j := range n {
			var s float64
			for p := range k {
				var av, bv T
				if transA {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if transB {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			old := 0.0
			if beta != 0 {
				old = float64(beta) * float64(c[i*ldc+j])
			}
			c[i*ldc+j] = T(float64(alpha)*s + old)
		}
	}
}

func randSlice[T Float](r *rand.Rand, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(r.Float64()*2 - 1)
	}
	return s
}

type gemmCase struct {
	m, n, k     int
	alpha, beta float64
	pad         int // extra elements per row beyond the minimum stride
}

func gemmCases() []gemmCase {
	var cs []gemmCase
	sizes := [][3]int{
		{0, 0, 0}, {0, 3, 2}, {3, 0, 2}, {3, 2, 0}, {1, 1, 1}, {1, 5, 1}, {5, 1, 1}, {1, 1, 7},
		{2, 3, 4}, {3, 2, 5}, {7, 5, 3}, {13, 17, 11}, {31, 1, 9}, {1, 33, 19},
		{64, 64, 64}, {97, 101, 103}, {130, 67, 300}, {200, 7, 513}, {3, 250, 260},
		{gemmMC + 3, 2*3 + 1, gemmKC + 1}, {300, 1, 700},
		// whole 7x7 planes (planes.go): ragged rows, depths past a block
		// and not a multiple of 16
		{7, 49, 1}, {30, 49, 600}, {9, 49, 2100}, {8, 196, 531}, {20, 147, 16}, {15, 245, 9}, {10, 196, 1100},
		// more rows than columns, each worker packing all of B
		{300, 98, 40}, {100, 98, 1100},
	}
	scalars := [][2]float64{{1, 0}, {1, 1}, {-0.5, 2}, {2, 0}, {0, 0.5}}
	for i, s := range sizes {
		for j, ab := range scalars {
			cs = append(cs, gemmCase{s[0], s[1], s[2], ab[0], ab[1], (i + j) % 3 * 2})
		}
	}
	return cs
}

func testGemm[T Float](t *testing.T, tol float64) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range gemmCases() {
		for _, transA := range []bool{false, true} {
			for _, transB := range []bool{false, true} {
				name := fmt.Sprintf("m%d_n%d_k%d_tA%v_tB%v_a%g_b%g_pad%d", tc.m, tc.n, tc.k, transA, transB, tc.alpha, tc.beta, tc.pad)
				checkOneGemm[T](t, r, name, tc, transA, transB, tol)
			}
		}
	}
}

func checkOneGemm[T Float](t *testing.T, r *rand.Rand, name string, tc gemmCase, transA, transB bool, tol float64) {
	t.Helper()
	m, n, k := tc.m, tc.n, tc.k
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	lda, ldb, ldc := max(1, colsA)+tc.pad, max(1, colsB)+tc.pad, max(1, n)+tc.pad
	a := randSlice[T](r, rowsA*lda)
	b := randSlice[T](r, rowsB*ldb)
	c := randSlice[T](r, m*ldc)
	if tc.beta == 0 {
		for i := range c {
			c[i] = T(math.NaN()) // must be ignored
		}
	}
	want := append([]T(nil), c...)
	naiveGemm(transA, transB, m, n, k, T(tc.alpha), a, lda, b, ldb, T(tc.beta), want, ldc)
	Gemm(transA, transB, m, n, k, T(tc.alpha), a, lda, b, ldb, T(tc.beta), c, ldc)
	for i := range m {
		for j := range ldc {
			got, w := c[i*ldc+j], want[i*ldc+j]
			if j >= n { // padding must be left alone
				if !(got == w || (got != got && w != w)) {
					t.Fatalf("%s: padding C[%d,%d] changed to %v", name, i, j, got)
				}
				continue
			}
			if math.Abs(float64(got-w)) > tol*(1+math.Sqrt(float64(k))) {
				t.Fatalf("%s: C[%d,%d] = %v, want %v", name, i, j, got, w)
			}
		}
	}
}

func TestGemmFloat32(t *testing.T) { testGemm[float32](t, 1e-5) }
func TestGemmFloat64(t *testing.T) { testGemm[float64](t, 1e-12) }

// A named float type takes the portable kernel path.
type myFloat float32

func TestGemmNamedType(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checkOneGemm[myFloat](t, r, "named", gemmCase{37, 29, 41, 1.5, 0.5, 1}, true, false, 1e-5)
}

// forceParallel makes every Gemm of the test take the parallel path.
func forceParallel(t *testing.T) {
	saved := gemmParallelMin
	gemmParallelMin = 1
	t.Cleanup(func() { gemmParallelMin = saved })
}

// Every case of TestGemm again, split over the worker pool.
func TestGemmParallel(t *testing.T) {
	forceParallel(t)
	testGemm[float32](t, 1e-5)
	testGemm[float64](t, 1e-12)
}

func TestGemmLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large product")
	}
	forceParallel(t)
	r := rand.New(rand.NewPCG(5, 6))
	// Larger than gemmNC in n, several kc blocks, parallel path.
	checkOneGemm[float32](t, r, "wide", gemmCase{20, gemmNC + 5, 2*gemmKC + 3, 1, 0.5, 0}, false, true, 1e-5)
	checkOneGemm[float64](t, r, "tall", gemmCase{3*gemmMC + 1, 70, 100, -1, 0, 2}, true, true, 1e-12)
	// Several row blocks of A and many column blocks of C.
	checkOneGemm[float32](t, r, "both", gemmCase{gemmMC + 13, 3*gemmNC + 70, 40, 1, 1, 1}, false, false, 1e-5)
}

func TestGemmShortSlicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a too-short A")
		}
	}()
	Gemm(false, false, 2, 2, 2, 1, make([]float32, 3), 2, make([]float32, 4), 2, 0, make([]float32, 4), 2)
}

func ExampleGemm() {
	// C = A*B with A 2x3 and B 3x2, all row-major.
	a := []float64{
		1, 2, 3,
		4, 5, 6,
	}
	b := []float64{
		7, 8,
		9, 10,
		11, 12,
	}
	c := make([]float64, 4)
	Gemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
	fmt.Println(c[:2])
	fmt.Println(c[2:])
	// Output:
	// [58 64]
	// [139 154]
}

func reportGFLOPS(b *testing.B, flopsPerOp float64) {
	b.ReportMetric(flopsPerOp*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func benchGemm[T Float](b *testing.B, n int) {
	r := rand.New(rand.NewPCG(7, 8))
	x := randSlice[T](r, n*n)
	y := randSlice[T](r, n*n)
	z := make([]T, n*n)
	b.ResetTimer()
	for b.Loop() {
		Gemm(false, false, n, n, n, 1, x, n, y, n, 0, z, n)
	}
	reportGFLOPS(b, 2*float64(n)*float64(n)*float64(n))
}

func BenchmarkSgemm(b *testing.B) {
	for _, n := range []int{128, 256, 512, 1024, 2048} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchGemm[float32](b, n) })
	}
}

// BenchmarkGemmPlanes times products of whole 7x7 planes (planes.go) at
// the shapes of ResNet-18's convolutions at batch 1: 512 filters of 4608
// weights times 49 positions, 512 of 2304 (its stride-2 convolution to
// 7x7) and 256 of 1152 times 196 (to 14x14). Eight copies of the filters
// take turns, so that they come from memory as in a network.
func BenchmarkGemmPlanes(b *testing.B) {
	for _, s := range [][3]int{{512, 49, 4608}, {512, 49, 2304}, {256, 196, 1152}, {64, 196, 384}, {96, 196, 576}, {576, 196, 96}, {160, 49, 960}, {960, 49, 160}} {
		m, n, k := s[0], s[1], s[2]
		r := rand.New(rand.NewPCG(9, 10))
		var as [8][]float32
		for i := range as {
			as[i] = randSlice[float32](r, m*k)
		}
		x := randSlice[float32](r, k*n)
		c := make([]float32, m*n)
		b.Run(fmt.Sprintf("%dx%dx%d", m, n, k), func(b *testing.B) {
			i := 0
			for b.Loop() {
				Gemm(false, false, m, n, k, 1, as[i%len(as)], k, x, n, 0, c, n)
				i++
			}
			reportGFLOPS(b, 2*float64(m*n*k))
		})
	}
}

func BenchmarkDgemm(b *testing.B) {
	b.Run("n=256", func(b *testing.B) { benchGemm[float64](b, 256) })
}

var _ = time.Second

// TestGemmEmptyStrides: empty operands may come with any stride, and sizes
// of zero must leave C alone or only scale it.
func TestGemmEmptyStrides(t *testing.T) {
	c := []float32{1, 2, 3, 4}
	Gemm(false, false, 2, 2, 0, 1, nil, 0, nil, 2, 2, c, 2)
	if c[0] != 2 || c[3] != 8 {
		t.Fatalf("k=0 should only scale C by beta, got %v", c)
	}
	Gemm[float64](false, false, 0, 0, 0, 1, nil, 0, nil, 0, 0, nil, 0)
}

// TestGemmTurnedA checks GemmTurnedA against Gemm on the filters turned
// into a matrix of their own: 3x3 and other kernels, rows that leave the
// last panel ragged, depths whose blocks split a filter's taps, on one
// goroutine and on the workers, in float32 and float64.
func TestGemmTurnedA(t *testing.T) {
	testGemmTurnedA[float32](t, 1e-5)
	testGemmTurnedA[float64](t, 1e-12)
}

func testGemmTurnedA[T Float](t *testing.T, tol float64) {
	r := rand.New(rand.NewPCG(71, 72))
	for _, parallel := range []bool{false, true} {
		if parallel {
			forceParallel(t)
		}
		for _, tc := range []struct{ filters, channels, taps, n int }{
			{1, 1, 1, 1}, {3, 5, 9, 7}, {64, 13, 9, 33}, {29, 40, 9, 256}, {31, 7, 25, 17}, {40, 25, 4, 70}, {2, 300, 9, 3},
		} {
			m, k := tc.channels, tc.filters*tc.taps
			w := randSlice[T](r, tc.filters*tc.channels*tc.taps)
			turned := make([]T, m*k)
			for f := range tc.filters {
				for c := range tc.channels {
					for tp := range tc.taps {
						turned[c*k+f*tc.taps+tp] = w[(f*tc.channels+c)*tc.taps+tc.taps-1-tp]
					}
				}
			}
			ldb, ldc := tc.n+2, tc.n+1
			b := randSlice[T](r, k*ldb)
			want, got := make([]T, m*ldc), make([]T, m*ldc)
			for i := range got {
				got[i] = T(math.NaN()) // must be overwritten, but the padding kept
				want[i] = got[i]
			}
			Gemm(false, false, m, tc.n, k, 1, turned, k, b, ldb, 0, want, ldc)
			GemmTurnedA(m, tc.n, k, tc.taps, w, b, ldb, got, ldc)
			for i := range m {
				for j := range tc.n {
					if d := math.Abs(float64(got[i*ldc+j] - want[i*ldc+j])); d > tol*(1+math.Sqrt(float64(k))) {
						t.Fatalf("%+v parallel %v: C[%d,%d] = %v, want %v", tc, parallel, i, j, got[i*ldc+j], want[i*ldc+j])
					}
				}
				if v := got[i*ldc+tc.n]; v == v {
					t.Fatalf("%+v: the padding of row %d was written", tc, i)
				}
			}
		}
	}
}
