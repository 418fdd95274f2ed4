//go:build !purego

package accel

import (
	"os"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// Assembly micro-kernels (kernel_amd64.s). Each multiplies a full mr x kc
// packed A panel by a kc x nr packed B panel and adds alpha times the product
// into the mr x nr tile of C at c (row stride ldc, in elements), or with
// store writes it there without reading C. kc >= 1.
//
//go:noescape
func sgemm6x16AVX2(kc int, alpha float32, a, b, c *float32, ldc int, store bool)

//go:noescape
func dgemm6x8AVX2(kc int, alpha float64, a, b, c *float64, ldc int, store bool)

//go:noescape
func sgemm12x32AVX512(kc int, alpha float32, a, b, c *float32, ldc int, store bool)

//go:noescape
func sgemm6x32AVX512(kc int, alpha float32, a, b, c *float32, ldc int, store bool)

//go:noescape
func dgemm12x16AVX512(kc int, alpha float64, a, b, c *float64, ldc int, store bool)

// sgemm12x32RowsAVX512 and sgemm6x32RowsAVX512 are the kernels above with
// A read as it lies, row i of the tile at a + i*lda.
//
//go:noescape
func sgemm12x32RowsAVX512(kc int, alpha float32, a, b, c *float32, ldc int, store bool, lda int)

//go:noescape
func sgemm6x32RowsAVX512(kc int, alpha float32, a, b, c *float32, ldc int, store bool, lda int)

// sgemm7x49RowsAVX512 is plane7Kernel (kernel49_amd64.s).
//
//go:noescape
func sgemm7x49RowsAVX512(kc int, alpha float32, a, b, c *float32, ldc int, store bool, lda int, next *float32, ep *rowEpilogue)

// sgemm1x49AVX512 is plane1Kernel (kernel49_amd64.s).
//
//go:noescape
func sgemm1x49AVX512(kc int, alpha float32, a, b, c *float32, store bool)

// sgemm1x49 is plane1Kernel, every slice checked to hold what the
// kernel reads and writes.
func sgemm1x49(kc int, alpha float32, a, b, c []float32, store bool) {
	if kc < 1 {
		return
	}
	_ = a[kc-1]
	_ = b[planeCols*kc-1]
	_ = c[planeCols-1]
	sgemm1x49AVX512(kc, alpha, &a[0], &b[0], &c[0], store)
}

// rowEpilogue is a planeEpilogue as sgemm7x49RowsAVX512 reads it, at
// fixed offsets (checked below): per-row pointers and steps of 0 or 1.
type rowEpilogue struct {
	scale, bias         *float32
	scaleStep, biasStep int
	add                 *float32
	addStride           int
	lo, hi              float32
}

// The offsets the assembly reads rowEpilogue's fields at: a layout that
// moved one fails to compile.
var (
	_ [0]struct{} = [unsafe.Offsetof(rowEpilogue{}.bias) - 8]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(rowEpilogue{}.scaleStep) - 16]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(rowEpilogue{}.biasStep) - 24]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(rowEpilogue{}.add) - 32]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(rowEpilogue{}.addStride) - 40]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(rowEpilogue{}.lo) - 48]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(rowEpilogue{}.hi) - 52]struct{}{}
)

// splitRowsAVX512 is splitRowsKernel's loop (kernel49_amd64.s): n > 0.
//
//go:noescape
func splitRowsAVX512(n int, src *float32, ds int, dst, last *float32)

// splitRows is splitRowsKernel.
func splitRows(n int, src []float32, ds int, dst, last []float32) {
	if n < 1 {
		return
	}
	_ = src[(n-1)*ds+planeCols-1]
	_ = dst[n*(planeCols-1)-1]
	_ = last[n-1]
	splitRowsAVX512(n, &src[0], ds, &dst[0], &last[0])
}

// rowsFit checks, as panelsFit, the reads of a kernel that takes A as it
// lies: the last element of its last row.
func rowsFit[T Float](mr, nr, kc int, a []T, lda int, b, c []T, ldc int) bool {
	if kc < 1 {
		return false
	}
	_ = a[(mr-1)*lda+kc-1]
	_ = b[nr*kc-1]
	_ = c[(mr-1)*ldc+nr-1]
	return true
}

func sgemm12x32Rows(kc int, alpha float32, a []float32, lda int, b, c []float32, ldc int, store bool) {
	if rowsFit(12, 32, kc, a, lda, b, c, ldc) {
		sgemm12x32RowsAVX512(kc, alpha, &a[0], &b[0], &c[0], ldc, store, lda)
	}
}

func sgemm7x49Rows(kc int, alpha float32, a []float32, lda int, b, c []float32, ldc int, store bool, next []float32, ep planeEpilogue) {
	if !rowsFit(planeRows, planeCols, kc, a, lda, b, c, ldc) {
		return
	}
	if !ep.on {
		sgemm7x49RowsAVX512(kc, alpha, &a[0], &b[0], &c[0], ldc, store, lda, &next[0], nil)
		return
	}
	r := rowEpilogue{lo: ep.lo, hi: ep.hi}
	r.scale, r.scaleStep = perRow(ep.scale, planeRows, &unitScale[0])
	r.bias, r.biasStep = perRow(ep.bias, planeRows, &zeroBias[0])
	if ep.add != nil {
		_ = ep.add[(planeRows-1)*ep.addStride+planeCols-1]
		r.add, r.addStride = &ep.add[0], ep.addStride
	}
	sgemm7x49RowsAVX512(kc, alpha, &a[0], &b[0], &c[0], ldc, store, lda, &next[0], &r)
}

func sgemm6x32Rows(kc int, alpha float32, a []float32, lda int, b, c []float32, ldc int, store bool) {
	if rowsFit(6, 32, kc, a, lda, b, c, ldc) {
		sgemm6x32RowsAVX512(kc, alpha, &a[0], &b[0], &c[0], ldc, store, lda)
	}
}

// init picks the widest kernels the CPU (and OS) support: AVX-512 when
// AVX512F is present, else AVX2 with FMA, else the portable kernel stays.
func init() {
	switch {
	case cpu.X86.HasAVX512F && !noAVX512:
		sgemmKernel = microKernel[float32]{mr: 12, nr: 32, fn: sgemm12x32, rows: sgemm12x32Rows}
		sgemmKernelFew = microKernel[float32]{mr: 6, nr: 32, fn: sgemm6x32, rows: sgemm6x32Rows}
		plane7Kernel = sgemm7x49Rows
		plane1Kernel = sgemm1x49
		splitRowsKernel = splitRows
		dgemmKernel = microKernel[float64]{mr: 12, nr: 16, fn: dgemm12x16}
		kernelName = "avx512"
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		sgemmKernel = microKernel[float32]{mr: 6, nr: 16, fn: sgemm6x16}
		dgemmKernel = microKernel[float64]{mr: 6, nr: 8, fn: dgemm6x8}
		kernelName = "avx2"
	}
}

// panelsFit checks the slice bounds the assembly kernels rely on — the
// last element of each packed panel and of the mr x nr C tile — before
// they are handed pointers; it panics like any out-of-range index. It
// reports false when there is nothing to multiply.
func panelsFit[T Float](mr, nr, kc int, a, b, c []T, ldc int) bool {
	if kc < 1 {
		return false
	}
	_ = a[mr*kc-1]
	_ = b[nr*kc-1]
	_ = c[(mr-1)*ldc+nr-1]
	return true
}

func sgemm6x16(kc int, alpha float32, a, b, c []float32, ldc int, store bool) {
	if panelsFit(6, 16, kc, a, b, c, ldc) {
		sgemm6x16AVX2(kc, alpha, &a[0], &b[0], &c[0], ldc, store)
	}
}

func dgemm6x8(kc int, alpha float64, a, b, c []float64, ldc int, store bool) {
	if panelsFit(6, 8, kc, a, b, c, ldc) {
		dgemm6x8AVX2(kc, alpha, &a[0], &b[0], &c[0], ldc, store)
	}
}

func sgemm12x32(kc int, alpha float32, a, b, c []float32, ldc int, store bool) {
	if panelsFit(12, 32, kc, a, b, c, ldc) {
		sgemm12x32AVX512(kc, alpha, &a[0], &b[0], &c[0], ldc, store)
	}
}

func sgemm6x32(kc int, alpha float32, a, b, c []float32, ldc int, store bool) {
	if panelsFit(6, 32, kc, a, b, c, ldc) {
		sgemm6x32AVX512(kc, alpha, &a[0], &b[0], &c[0], ldc, store)
	}
}

func dgemm12x16(kc int, alpha float64, a, b, c []float64, ldc int, store bool) {
	if panelsFit(12, 16, kc, a, b, c, ldc) {
		dgemm12x16AVX512(kc, alpha, &a[0], &b[0], &c[0], ldc, store)
	}
}

// noAVX512 is set from the environment at start-up:
// HYBRIDGO_GEMM=avx2 skips the AVX-512 kernels (for comparison and testing).
var noAVX512 = os.Getenv("HYBRIDGO_GEMM") == "avx2"

// wgrad6AVX512 is the direct weight gradient of one image for six
// filters (see wgrad.go).
//
//go:noescape
func wgrad6AVX512(ntaps int, offs *int, x *float32, segs *wgradSeg, nsegs int, gy *float32, fs int, acc *float32)

// wgrad6 checks that every read and write of wgrad6AVX512 lies inside its
// slices, then runs it.
func wgrad6(t *wgradTable, x, gy []float32, fs int, acc []float32) {
	_ = x[t.offMax+t.xReach-1]
	_ = gy[5*fs+t.gyReach-1]
	_ = acc[len(t.offs)*96-1]
	wgrad6AVX512(len(t.offs), &t.offs[0], &x[0], &t.segs[0], len(t.segs), &gy[0], fs, &acc[0])
}

func init() {
	if cpu.X86.HasAVX512F && !noAVX512 {
		wgradKernel = wgrad6
	}
}

// conv6x4AVX512 and conv6x3TwoRowAVX512 are the direct convolution
// forward of one image for six filters and a block of four one-row or
// three two-row segments, conv4x4AVX512 for four filters and four
// one-row segments (see convfwd512_amd64.s).
//
// They read the filters as they lie, rows of ntaps weights one after
// the other, multiply each filter's sums by its scale, add its bias and
// the element of add (nil for none) at the output's place, then clamp:
// bit 1 of clamp is relu, bit 2 the cap.
//
//go:noescape
func conv6x4AVX512(ntaps int, offs *int, x *float32, segs *wgradSeg, w, scale, bias, add *float32, clamp int, cap float32, out *float32, fs int)

//go:noescape
func conv6x3TwoRowAVX512(ntaps int, offs *int, x *float32, segs *wgradSeg, w, scale, bias, add *float32, clamp int, cap float32, out *float32, fs int)

//go:noescape
func conv4x4AVX512(ntaps int, offs *int, x *float32, segs *wgradSeg, w, scale, bias, add *float32, clamp int, cap float32, out *float32, fs int)

// convFwdAVX512 checks that every read and write of the direct forward
// kernels lies inside its slices, then runs them block by block over
// segments lo to hi-1 of the table's fwdSegs, which must start and end at
// blocks: for six filters, or for four (convFwdTakesFour).
func convFwdAVX512(t *wgradTable, filters, lo, hi int, x, w, scale, bias, add []float32, relu, capped bool, cap float32, out []float32, fs int) {
	if filters != 6 && (filters != 4 || t.twoRow) {
		panic("accel: the direct forward has no kernel for this many filters")
	}
	taps := t.taps
	_ = x[t.offMax+t.xReach-1]
	_ = out[(filters-1)*fs+t.gyReach-1]
	_ = w[taps*filters-1]
	_ = scale[filters-1]
	_ = bias[filters-1]
	segs := t.fwdSegs[:hi]
	var ap *float32
	if add != nil {
		_ = add[(filters-1)*fs+t.gyReach-1]
		ap = &add[0]
	}
	clamp := 0
	if relu {
		clamp |= 1
	}
	if capped {
		clamp |= 2
	}
	for i := lo; i < hi; {
		four := i < t.fwdFours
		if four && i%4 != 0 || !four && (i-t.fwdFours)%3 != 0 {
			panic("accel: the direct forward's segments do not start at a block")
		}
		switch {
		case filters == 6 && four:
			conv6x4AVX512(taps, &t.offs[0], &x[0], &segs[i:][:4][0], &w[0], &scale[0], &bias[0], ap, clamp, cap, &out[0], fs)
		case filters == 6:
			conv6x3TwoRowAVX512(taps, &t.offs[0], &x[0], &segs[i:][:3][0], &w[0], &scale[0], &bias[0], ap, clamp, cap, &out[0], fs)
		case four:
			conv4x4AVX512(taps, &t.offs[0], &x[0], &segs[i:][:4][0], &w[0], &scale[0], &bias[0], ap, clamp, cap, &out[0], fs)
		default:
			// A block of three one-row segments, and one with no lanes.
			block := [4]wgradSeg{segs[i], segs[i+1], segs[i+2]}
			conv4x4AVX512(taps, &t.offs[0], &x[0], &block[0], &w[0], &scale[0], &bias[0], ap, clamp, cap, &out[0], fs)
		}
		if four {
			i += 4
		} else {
			i += 3
		}
	}
}

func init() {
	if cpu.X86.HasAVX512F && !noAVX512 {
		convFwdKernel = convFwdAVX512
	}
}
