package accel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// portableTile computes the product that kernel k should add for an mr x kc A
// panel and a kc x nr B panel by running the portable 2x3 kernel over 2x3
// sub-tiles: the panels are re-packed into 2-row and 3-column panels
// (zero-padded) and the results land in a padded tile with row stride ldt.
func portableTile[T Float](mr, nr, kc int, alpha T, a, b []T) (tile []T, ldt int) {
	const pr, pc = 2, 3
	rows, cols := roundUp(mr, pr), roundUp(nr, pc)
	tile = make([]T, rows*cols)
	ap := make([]T, pr*kc)
	bp := make([]T, pc*kc)
	for i := 0; i < rows; i += pr {
		clear(ap)
		for d := range kc {
			for r := range min(pr, mr-i) {
				ap[d*pr+r] = a[d*mr+i+r]
			}
		}
		for j := 0; j < cols; j += pc {
			clear(bp)
			for d := range kc {
				for s := range min(pc, nr-j) {
					bp[d*pc+s] = b[d*nr+j+s]
				}
			}
			kernel2x3(kc, alpha, ap, bp, tile[i*cols+j:], cols, false)
		}
	}
	return tile, cols
}

// testKernelTile checks kernel k against the portable one on random panels,
// with a C tile embedded in a larger matrix whose other elements must stay
// untouched.
func testKernelTile[T Float](t *testing.T, k microKernel[T], tol float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(11, 12))
	for _, kc := range []int{1, 2, 3, 7, 16, 64, 257} {
		for _, alpha := range []T{1, -1, 0.5, 2.25, 0} {
			for _, pad := range []int{0, 5} {
				name := fmt.Sprintf("%dx%d/kc=%d/alpha=%v/pad=%d", k.mr, k.nr, kc, alpha, pad)
				a := randSlice[T](r, k.mr*kc)
				b := randSlice[T](r, k.nr*kc)
				ldc := k.nr + pad
				// One guard row above and below, a guard column on each side.
				c := randSlice[T](r, (k.mr+2)*ldc+2)
				c0 := append([]T(nil), c...)
				off := ldc + 1
				store := pad == 0 && alpha != 0.5 // both modes, over the cases
				k.fn(kc, alpha, a, b, c[off:], ldc, store)

				want, ldt := portableTile(k.mr, k.nr, kc, alpha, a, b)
				inTile := func(idx int) (int, int, bool) {
					p := idx - off
					if p < 0 {
						return 0, 0, false
					}
					i, j := p/ldc, p%ldc
					return i, j, i < k.mr && j < k.nr
				}
				for idx := range c {
					i, j, ok := inTile(idx)
					if !ok {
						if c[idx] != c0[idx] {
							t.Fatalf("%s: element %d outside the tile changed: %v -> %v", name, idx, c0[idx], c[idx])
						}
						continue
					}
					exp := float64(c0[idx]) + float64(want[i*ldt+j])
					if store {
						exp = float64(want[i*ldt+j])
					}
					got := float64(c[idx])
					scale := math.Sqrt(float64(kc)) + 1
					if math.Abs(got-exp) > tol*scale*(1+math.Abs(exp)) {
						t.Fatalf("%s: C(%d,%d) = %v, want %v", name, i, j, got, exp)
					}
				}
			}
		}
	}
}

func TestKernelTileFloat32(t *testing.T) {
	t.Logf("kernel %s", kernelName)
	testKernelTile(t, kernelFor[float32](), 1e-5)
}

func TestKernelTileFloat64(t *testing.T) { testKernelTile(t, kernelFor[float64](), 1e-13) }

// TestGemmOddSizes runs square products of awkward sizes through Gemm with
// every transpose combination and padded strides, against naiveGemm.
func TestGemmOddSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 3, 17, 63, 65, 257} {
		for _, pad := range []int{0, 3} {
			tc := gemmCase{m: n, n: n, k: n, alpha: 1.5, beta: -0.5, pad: pad}
			for _, ta := range []bool{false, true} {
				for _, tb := range []bool{false, true} {
					name := fmt.Sprintf("n=%d/pad=%d/tA=%v/tB=%v", n, pad, ta, tb)
					checkOneGemm[float32](t, r, name, tc, ta, tb, 1e-5)
					checkOneGemm[float64](t, r, name, tc, ta, tb, 1e-12)
				}
			}
		}
	}
	// Non-square shapes around the tile sizes.
	for _, s := range [][3]int{{5, 15, 1}, {6, 16, 2}, {7, 17, 7}, {12, 32, 64}, {13, 33, 257}, {95, 47, 300}} {
		tc := gemmCase{m: s[0], n: s[1], k: s[2], alpha: -2, beta: 1, pad: 1}
		name := fmt.Sprintf("%dx%dx%d", s[0], s[1], s[2])
		checkOneGemm[float32](t, r, name, tc, false, true, 1e-5)
		checkOneGemm[float64](t, r, name, tc, true, false, 1e-12)
	}
}

// TestRowsKernel checks the kernels that read A as it lies against the
// packed ones, rows at a stride longer than the depth, in both modes.
func TestRowsKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	for _, k := range []microKernel[float32]{sgemmKernel, sgemmKernelFew} {
		if k.rows == nil {
			t.Logf("no %dx%d kernel that reads A as it lies on this CPU", k.mr, k.nr)
			continue
		}
		for _, kc := range []int{1, 7, 256, 257} {
			for _, store := range []bool{false, true} {
				lda := kc + 3
				a := randSlice[float32](r, k.mr*lda)
				packed := make([]float32, k.mr*kc)
				packPanels(packed, a, lda, 1, 0, k.mr, 0, kc, k.mr)
				b := randSlice[float32](r, k.nr*kc)
				c0 := randSlice[float32](r, k.mr*k.nr)
				want, got := append([]float32(nil), c0...), append([]float32(nil), c0...)
				k.fn(kc, 0.5, packed, b, want, k.nr, store)
				k.rows(kc, 0.5, a, lda, b, got, k.nr, store)
				closeSlices(t, fmt.Sprintf("%dx%d kc=%d store=%v", k.mr, k.nr, kc, store), got, want, 1e-5*float64(kc))
			}
		}
	}
}
