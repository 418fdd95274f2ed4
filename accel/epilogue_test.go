package accel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// refEpilogue applies ep to an m x n C the slow way.
func refEpilogue[T Float](ep *Epilogue[T], m, n int, c []T, ldc int) {
	for i := range m {
		for j := range n {
			v := c[i*ldc+j]
			if ep.RowScale != nil {
				v *= ep.RowScale[i]
			}
			if ep.RowBias != nil {
				v += ep.RowBias[i]
			}
			if ep.ColBias != nil {
				v += ep.ColBias[j]
			}
			if ep.Add != nil {
				v += ep.Add[i*ep.AddStride+j]
			}
			if ep.Relu && !(v >= 0) && v == v {
				v = 0
			}
			if ep.Capped && v > ep.Cap {
				v = ep.Cap
			}
			c[i*ldc+j] = v
		}
	}
}

func epilogues[T Float](r *rand.Rand, m, n int) []*Epilogue[T] {
	return []*Epilogue[T]{
		nil,
		{},
		{Relu: true},
		{RowBias: randSlice[T](r, m)},
		{ColBias: randSlice[T](r, n), Relu: true},
		{RowBias: randSlice[T](r, m), ColBias: randSlice[T](r, n), Relu: true},
		// An inference BatchNorm, a residual sum and relu (a ResNet block's end).
		{RowScale: randSlice[T](r, m), RowBias: randSlice[T](r, m), Add: randSlice[T](r, m*(n+5)), AddStride: n + 5, Relu: true},
		{RowScale: randSlice[T](r, m), ColBias: randSlice[T](r, n)},
		{Add: randSlice[T](r, m*n), AddStride: n},
		// relu6 after an inference BatchNorm (MobileNet's), and a cap alone.
		{RowScale: randSlice[T](r, m), RowBias: randSlice[T](r, m), Relu: true, Capped: true, Cap: 0.5},
		{Capped: true, Cap: 0.25},
	}
}

func closeSlices[T Float](t *testing.T, name string, got, want []T, tol float64) {
	t.Helper()
	for i := range want {
		if !(math.Abs(float64(got[i]-want[i])) <= tol) { // NaN fails too
			t.Fatalf("%s: element %d = %v, want %v", name, i, got[i], want[i])
		}
	}
}

func testGemmEpilogue[T Float](t *testing.T, tol float64) {
	r := rand.New(rand.NewPCG(21, 22))
	sizes := [][3]int{{1, 1, 1}, {1, 10, 784}, {2, 7, 9}, {4, 33, 17}, {5, 40, 3}, {3, 5, 0}, {16, 120, 400}, {13, 70, 300}, {97, 101, 103}, {130, 140, 70}, {9, 1, 20}, {300, 1, 700},
		{100, 196, 50}, {90, 196, 20}, {20, 147, 1100}, {230, 98, 60}, {30, 49, 200}} // {130, 140, 70} above epilogueWholeMax; n 1 as dot products; whole 7x7 planes with ragged rows, above epilogueWholeMax, with more rows than columns, of one panel
	for _, s := range sizes {
		m, n, k := s[0], s[1], s[2]
		for _, transA := range []bool{false, true} {
			for _, transB := range []bool{false, true} {
				for ei, ep := range epilogues[T](r, m, n) {
					name := fmt.Sprintf("m%d_n%d_k%d_tA%v_tB%v_ep%d", m, n, k, transA, transB, ei)
					lda, ldb, ldc := k+1, n+2, n+3
					rowsA, rowsB := m, k
					if transA {
						lda, rowsA = m+1, k
					}
					if transB {
						ldb, rowsB = k+2, n
					}
					a := randSlice[T](r, max(1, rowsA*lda))
					b := randSlice[T](r, max(1, rowsB*ldb))
					c := randSlice[T](r, m*ldc)
					for i := range c {
						c[i] = T(math.NaN()) // must be overwritten, and the padding left alone
					}
					want := append([]T(nil), c...)
					naiveGemm(transA, transB, m, n, k, 1, a, lda, b, ldb, 0, want, ldc)
					if ep != nil {
						refEpilogue(ep, m, n, want, ldc)
					}
					GemmEpilogue(transA, transB, m, n, k, a, lda, b, ldb, c, ldc, ep)
					for i := range m {
						for j := range ldc {
							got, w := c[i*ldc+j], want[i*ldc+j]
							if j >= n {
								if got == got {
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
			}
		}
	}
}

func TestGemmEpilogueFloat32(t *testing.T) { testGemmEpilogue[float32](t, 1e-5) }
func TestGemmEpilogueFloat64(t *testing.T) { testGemmEpilogue[float64](t, 1e-12) }

func TestEpilogueShortBiasPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a row bias shorter than the rows of C did not panic")
		}
	}()
	c := make([]float32, 6)
	GemmEpilogue(false, false, 2, 3, 1, make([]float32, 2), 1, make([]float32, 3), 3, c, 3, &Epilogue[float32]{RowBias: []float32{1}})
}

func testIm2colPacked[T Float](t *testing.T, tol float64) {
	r := rand.New(rand.NewPCG(23, 24))
	geoms := append(convGeoms(),
		ConvGeom{Channels: 1, InH: 28, InW: 28, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 6, InH: 12, InW: 12, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 3, InH: 11, InW: 13, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		// Unit-stride rows of 13 and 9: runs with tails, across panels.
		ConvGeom{Channels: 2, InH: 9, InW: 13, KernelH: 3, KernelW: 3, StrideH: 2, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 3, InH: 7, InW: 11, KernelH: 2, KernelW: 3, StrideH: 1, StrideW: 1, DilateH: 2, DilateW: 1},
		// A ResNet stem (7x7, stride 2, pad 3; rows split into even and
		// odd columns) and rows of 6 and 5 outputs (short runs).
		ConvGeom{Channels: 3, InH: 15, InW: 17, KernelH: 7, KernelW: 7, StrideH: 2, StrideW: 2, PadH: 3, PadW: 3, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 2, InH: 6, InW: 6, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 4, InH: 9, InW: 10, KernelH: 1, KernelW: 1, StrideH: 2, StrideW: 2, DilateH: 1, DilateW: 1},
	)
	for gi, g := range geoms {
		k, n := g.colRows(), g.OutH()*g.OutW()
		img := randSlice[T](r, g.Channels*g.InH*g.InW)
		col := make([]T, k*n)
		Im2col(g, img, col)
		packed := make([]T, PackedBLen[T](k, n))
		for i := range packed {
			packed[i] = T(math.NaN()) // every element, padding included, must be written
		}
		Im2colPacked(g, img, packed)
		w := PanelWidth[T]()
		for p := range k {
			for j := range roundUp(n, w) {
				got := packed[(j/w)*w*k+p*w+j%w]
				want := T(0)
				if j < n {
					want = col[p*n+j]
				}
				if got != want {
					t.Fatalf("geom %d: packed (%d, %d) = %v, want %v", gi, p, j, got, want)
				}
			}
		}
		for _, filters := range []int{1, 6, 13, 16} {
			wts := randSlice[T](r, filters*k)
			for ei, ep := range epilogues[T](r, filters, n) {
				want := make([]T, filters*n)
				naiveGemm(false, false, filters, n, k, 1, wts, k, col, n, 0, want, n)
				if ep != nil {
					refEpilogue(ep, filters, n, want, n)
				}
				got := make([]T, filters*n)
				GemmPackedB(false, filters, n, k, wts, k, packed, 0, got, n, ep)
				closeSlices(t, fmt.Sprintf("geom %d filters %d ep %d", gi, filters, ei), got, want, tol*(1+math.Sqrt(float64(k))))
			}
		}
	}
}

func TestIm2colPackedFloat32(t *testing.T) { testIm2colPacked[float32](t, 1e-5) }
func TestIm2colPackedFloat64(t *testing.T) { testIm2colPacked[float64](t, 1e-12) }

// TestGemmPackedBDeep covers depths beyond one packed block, and transA.
func TestGemmPackedBDeep(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	m, n, k := 7, 45, gemmKC*2+5
	w := PanelWidth[float64]()
	b := randSlice[float64](r, k*n)
	packed := make([]float64, PackedBLen[float64](k, n))
	for p := range k {
		for j := range n {
			packed[(j/w)*w*k+p*w+j%w] = b[p*n+j]
		}
	}
	a := randSlice[float64](r, k*m) // stored k x m: transA
	want := make([]float64, m*n)
	naiveGemm(true, false, m, n, k, 1, a, m, b, n, 0, want, n)
	got := make([]float64, m*n)
	GemmPackedB(true, m, n, k, a, m, packed, 0, got, n, nil)
	closeSlices(t, "deep", got, want, 1e-11)
}

// TestIm2colPackedT checks the transposed packing element by element and
// the weight-gradient product ograd * colᵀ accumulated over two images
// (beta 1) against the plain Gemm.
func TestIm2colPackedT(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	geoms := append(convGeoms(),
		ConvGeom{Channels: 1, InH: 28, InW: 28, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
		ConvGeom{Channels: 6, InH: 12, InW: 12, KernelH: 5, KernelW: 5, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1},
	)
	for gi, g := range geoms {
		k, n := g.colRows(), g.OutH()*g.OutW()
		w := PanelWidth[float32]()
		const maps = 5
		want := make([]float32, maps*k)
		got := make([]float32, maps*k)
		for i := range got {
			got[i] = float32(math.NaN()) // beta 0 on the first image must not read C
		}
		for img := range 2 {
			x := randSlice[float32](r, g.Channels*g.InH*g.InW)
			gy := randSlice[float32](r, maps*n)
			col := make([]float32, k*n)
			Im2col(g, x, col)
			packed := make([]float32, PackedBLen[float32](n, k))
			for i := range packed {
				packed[i] = float32(math.NaN())
			}
			Im2colPackedT(g, x, packed)
			for p := range n {
				for j := range roundUp(k, w) {
					v := packed[(j/w)*w*n+p*w+j%w]
					var c float32
					if j < k {
						c = col[j*n+p]
					}
					if v != c {
						t.Fatalf("geom %d: packedT (%d, %d) = %v, want %v", gi, p, j, v, c)
					}
				}
			}
			beta := float32(img) // 0, then 1
			naiveGemm(false, true, maps, k, n, 1, gy, n, col, n, beta, want, k)
			GemmPackedB(false, maps, k, n, gy, n, packed, beta, got, k, nil)
		}
		closeSlices(t, fmt.Sprintf("geom %d weight gradient", gi), got, want, 1e-4*(1+math.Sqrt(float64(n))))
	}
}

// TestGemmEpilogueParallel is TestGemmEpilogueFloat32 split over the
// worker pool: products of planes with few runs finish each panel of a
// run as a task of its own.
func TestGemmEpilogueParallel(t *testing.T) {
	forceParallel(t)
	testGemmEpilogue[float32](t, 1e-5)
}

// TestGemmPacked checks GemmPacked (both operands packed by the caller)
// against the plain product, across depth blocks and row blocks, with an
// epilogue.
func TestGemmPacked(t *testing.T) { testGemmPacked(t) }

// TestGemmPackedParallel is TestGemmPacked split over the worker pool:
// products with many columns give each task a block of columns.
func TestGemmPackedParallel(t *testing.T) {
	forceParallel(t)
	testGemmPacked(t)
}

func testGemmPacked(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	for _, s := range [][3]int{{1, 1, 1}, {6, 70, 25}, {16, 64, 150}, {gemmMC + 5, 40, gemmKC + 9}, {3, 5, 0}, {40, 2*gemmNC + 37, gemmKC + 3}} {
		m, n, k := s[0], s[1], s[2]
		for _, transA := range []bool{false, true} {
			lda := k
			if transA {
				lda = m
			}
			a := randSlice[float32](r, max(1, m*k))
			b := randSlice[float32](r, max(1, k*n))
			w := PanelWidth[float32]()
			bp := make([]float32, PackedBLen[float32](k, n))
			for p := range k {
				for j := range n {
					bp[(j/w)*w*k+p*w+j%w] = b[p*n+j]
				}
			}
			ap := make([]float32, PackedALen[float32](m, k))
			PackA(transA, m, k, a, lda, ap)
			ep := &Epilogue[float32]{RowBias: randSlice[float32](r, m), Relu: true}
			want := make([]float32, m*n)
			naiveGemm(transA, false, m, n, k, 1, a, lda, b, n, 0, want, n)
			refEpilogue(ep, m, n, want, n)
			got := make([]float32, m*n)
			GemmPacked(m, n, k, ap, bp, 0, got, n, ep)
			closeSlices(t, fmt.Sprintf("m%d n%d k%d tA%v", m, n, k, transA), got, want, 1e-5*(1+math.Sqrt(float64(k))))
		}
	}
}

// TestGemmPackedA checks a product with op(A) packed by PackA and B as
// given, plain or transposed, against the reference, with beta 0 on a C
// that holds NaN and with beta 1, in float32 and float64.
func TestGemmPackedA(t *testing.T) {
	testGemmPackedA[float32](t, 1e-5)
	testGemmPackedA[float64](t, 1e-12)
}

func TestGemmPackedAParallel(t *testing.T) {
	forceParallel(t)
	testGemmPackedA[float32](t, 1e-5)
	testGemmPackedA[float64](t, 1e-12)
}

func testGemmPackedA[T Float](t *testing.T, tol float64) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, s := range [][3]int{{1, 1, 1}, {150, 64, 16}, {25, 576, 6}, {17, 3, 65}, {gemmMC + 5, 40, gemmKC + 9}, {3, 5, 0}} {
		m, n, k := s[0], s[1], s[2]
		for _, transB := range []bool{false, true} {
			for _, beta := range []T{0, 1} {
				ldb := n
				if transB {
					ldb = k
				}
				a := randSlice[T](r, max(1, m*k))
				b := randSlice[T](r, max(1, k*n))
				ap := make([]T, PackedALen[T](m, k))
				PackA(true, m, k, a, m, ap) // A stored k x m
				want := randSlice[T](r, m*n)
				got := append([]T(nil), want...)
				if beta == 0 {
					for i := range got {
						got[i] = T(math.NaN())
					}
				}
				naiveGemm(true, transB, m, n, k, 1, a, m, b, ldb, beta, want, n)
				GemmPackedA(transB, m, n, k, ap, b, ldb, beta, got, n)
				closeSlices(t, fmt.Sprintf("m%d n%d k%d tB%v beta%v", m, n, k, transB, beta), got, want, tol*(1+math.Sqrt(float64(k))))
			}
		}
	}
}

// TestIm2colTablesCacheBound fills the table cache past its bound: it is
// emptied, and later geometries still pack correctly.
func TestIm2colTablesCacheBound(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for i := range tableCacheMax + 10 {
		g := ConvGeom{Channels: 1, InH: 3, InW: 8 + i, KernelH: 2, KernelW: 2, StrideH: 1, StrideW: 1, DilateH: 1, DilateW: 1}
		tablesFor(g, PanelWidth[float32]())
	}
	if n := tableCacheCount.Load(); n > tableCacheMax {
		t.Fatalf("the cache holds %d geometries, more than %d", n, tableCacheMax)
	}
	g := ConvGeom{Channels: 2, InH: 6, InW: 9, KernelH: 3, KernelW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1, DilateH: 1, DilateW: 1}
	k, n := g.colRows(), g.OutH()*g.OutW()
	img := randSlice[float32](r, g.Channels*g.InH*g.InW)
	col := make([]float32, k*n)
	Im2col(g, img, col)
	packed := make([]float32, PackedBLen[float32](k, n))
	Im2colPacked(g, img, packed)
	w := PanelWidth[float32]()
	for p := range k {
		for j := range n {
			if got, want := packed[(j/w)*w*k+p*w+j%w], col[p*n+j]; got != want {
				t.Fatalf("(%d, %d) = %v, want %v", p, j, got, want)
			}
		}
	}
}

// TestEpilogueApply checks Apply, on the workers for a large C, against
// the reference, with every epilogue of the product tests.
func TestEpilogueApply(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	for _, s := range [][2]int{{3, 5}, {64, 4099}} {
		m, n := s[0], s[1]
		for ei, ep := range epilogues[float32](r, m, n) {
			if ep == nil {
				continue
			}
			ldc := n + 2
			c := randSlice[float32](r, m*ldc)
			want := append([]float32(nil), c...)
			refEpilogue(ep, m, n, want, ldc)
			ep.Apply(c, ldc, m, n)
			closeSlices(t, fmt.Sprintf("%dx%d ep %d", m, n, ei), c, want, 1e-6)
		}
	}
}

// TestMatrixVectorProducts checks the dot-product paths of Gemm and
// GemmEpilogue (a column C, and few rows of C against a transposed B)
// against the definition, with depths around the kernels' vector widths,
// row counts around their groups of four, alpha and beta.
func TestMatrixVectorProducts(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	for _, k := range []int{1, 7, 15, 16, 17, 31, 32, 33, 48, 100, 1280} {
		for _, m := range []int{1, 3, 4, 5, 9, 1000} {
			a := randSlice[float32](r, m*(k+2))
			x := randSlice[float32](r, k)
			bias := randSlice[float32](r, m)
			for _, ab := range [][2]float32{{1, 0}, {0.5, 0}, {1, 2}} {
				// A column C: one dot product per row of A (lda k+2).
				c := randSlice[float32](r, m)
				c0 := append([]float32(nil), c...)
				Gemm(false, false, m, 1, k, ab[0], a, k+2, x, 1, ab[1], c, 1)
				// A single row of C against a transposed B: x·Bᵀ.
				row := randSlice[float32](r, m)
				row0 := append([]float32(nil), row...)
				Gemm(false, true, 1, m, k, ab[0], x, k, a, k+2, ab[1], row, m)
				for i := range m {
					want := 0.0
					for j := range k {
						want += float64(a[i*(k+2)+j]) * float64(x[j])
					}
					for _, v := range []struct {
						name     string
						got, was float32
					}{{"column", c[i], c0[i]}, {"row", row[i], row0[i]}} {
						w := float64(ab[0])*want + float64(ab[1])*float64(v.was)
						if math.Abs(float64(v.got)-w) > 1e-4*(1+math.Abs(w)) {
							t.Fatalf("%s k=%d m=%d alpha,beta=%v: [%d] = %v, want %v", v.name, k, m, ab, i, v.got, w)
						}
					}
				}
			}
			// With a bias and relu, through GemmEpilogue.
			c := make([]float32, m)
			GemmEpilogue(false, false, m, 1, k, a, k+2, x, 1, c, 1, &Epilogue[float32]{RowBias: bias, Relu: true})
			for i := range m {
				want := float64(bias[i])
				for j := range k {
					want += float64(a[i*(k+2)+j]) * float64(x[j])
				}
				want = max(want, 0)
				if math.Abs(float64(c[i])-want) > 1e-4*(1+math.Abs(want)) {
					t.Fatalf("epilogue k=%d m=%d: [%d] = %v, want %v", k, m, i, c[i], want)
				}
			}
		}
	}
}
