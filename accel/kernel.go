package accel

// The micro-kernel seam.
//
// Everything in Gemm except the innermost loop is written in terms of a
// microKernel: its tile shape (mr x nr) decides how A and B are packed, and
// its fn does all the arithmetic. Replacing sgemmKernel or dgemmKernel with a
// faster implementation (for example an AVX2 or AVX-512 assembly kernel with
// a larger tile, chosen at start-up from the CPU's features) needs no change
// to the blocking, packing or parallel code.

// maxTile bounds mr*nr for any kernel; Gemm keeps an edge tile of this size on
// the stack.
const maxTile = 512

// A microKernel multiplies packed micro-panels.
//
// fn(kc, alpha, a, b, c, ldc, store) computes C += alpha * A*B, or with
// store C = alpha * A*B (C is not read), where A is an mr x kc
// panel stored depth-major (a[p*mr + i] = A(i, p)), B is a kc x nr panel
// stored depth-major (b[p*nr + j] = B(p, j)) and C is an mr x nr tile at c
// with row stride ldc. a holds mr*kc and b nr*kc elements; kc >= 1.
//
// rows, where the kernel has one, is fn with A read as it lies instead of
// packed: row i of the mr x kc block at a[i*lda:]. nil where there is none.
type microKernel[T Float] struct {
	mr, nr int
	fn     func(kc int, alpha T, a, b, c []T, ldc int, store bool)
	rows   func(kc int, alpha T, a []T, lda int, b, c []T, ldc int, store bool)
}

// sgemmKernel and dgemmKernel are the micro-kernels used for float32 and
// float64 operands.
// They start as the portable kernel; on amd64 (without the purego build tag)
// an init function in kernel_amd64.go replaces them with assembly kernels
// when the CPU supports AVX2 and FMA.
var (
	sgemmKernel = microKernel[float32]{mr: 2, nr: 3, fn: kernel2x3[float32]}
	dgemmKernel = microKernel[float64]{mr: 2, nr: 3, fn: kernel2x3[float64]}
	// kernelName names the selected kernels ("go" for the portable one).
	kernelName = "go"
)

// sgemmKernelFew, when its fn is set, is a float32 kernel with fewer rows
// than sgemmKernel and the same nr (so B panels are packed alike), for
// products whose few rows would leave much of sgemmKernel's tile empty.
var sgemmKernelFew microKernel[float32]

// fewRowsMax is the most rows of C for which kernelForRows considers
// sgemmKernelFew.
const fewRowsMax = 48

// kernelForRows returns the micro-kernel for a product whose C has m
// rows: sgemmKernelFew when there is one and it needs fewer padded rows
// than the full kernel (6 or 16 rows, say, against tiles of 12), else
// kernelFor's.
func kernelForRows[T Float](m int) microKernel[T] {
	k := kernelFor[T]()
	if m > fewRowsMax || sgemmKernelFew.fn == nil || sgemmKernelFew.nr != k.nr {
		return k
	}
	few, ok := any(sgemmKernelFew).(microKernel[T])
	if !ok || roundUp(m, few.mr) >= roundUp(m, k.mr) {
		return k
	}
	return few
}

// kernelFor returns the micro-kernel for T: the float32 or float64 one, or the
// portable kernel for other types whose underlying type is a float.
func kernelFor[T Float]() microKernel[T] {
	if k, ok := any(sgemmKernel).(microKernel[T]); ok {
		return k
	}
	if k, ok := any(dgemmKernel).(microKernel[T]); ok {
		return k
	}
	return microKernel[T]{mr: 2, nr: 3, fn: kernel2x3[T]}
}

// kernel2x3 is the portable micro-kernel: a 2 x 3 tile whose six accumulators,
// two A values and three B values all live in registers (amd64 has 15 usable
// XMM registers without AVX; larger tiles spill accumulators to the stack).
// The depth loop is unrolled four times to give the CPU independent work and
// to amortise the loop and bounds-check overhead.
func kernel2x3[T Float](kc int, alpha T, a, b, c []T, ldc int, store bool) {
	const mr, nr = 2, 3
	a = a[:mr*kc]
	b = b[:nr*kc]
	var c00, c01, c02, c10, c11, c12 T
	p := 0
	for ; p+4 <= kc; p += 4 {
		ap := a[p*mr : p*mr+4*mr : p*mr+4*mr]
		bp := b[p*nr : p*nr+4*nr : p*nr+4*nr]
		{
			b0, b1, b2 := bp[0], bp[1], bp[2]
			a0 := ap[0]
			c00 += a0 * b0
			c01 += a0 * b1
			c02 += a0 * b2
			a1 := ap[1]
			c10 += a1 * b0
			c11 += a1 * b1
			c12 += a1 * b2
		}
		{
			b0, b1, b2 := bp[3], bp[4], bp[5]
			a0 := ap[2]
			c00 += a0 * b0
			c01 += a0 * b1
			c02 += a0 * b2
			a1 := ap[3]
			c10 += a1 * b0
			c11 += a1 * b1
			c12 += a1 * b2
		}
		{
			b0, b1, b2 := bp[6], bp[7], bp[8]
			a0 := ap[4]
			c00 += a0 * b0
			c01 += a0 * b1
			c02 += a0 * b2
			a1 := ap[5]
			c10 += a1 * b0
			c11 += a1 * b1
			c12 += a1 * b2
		}
		{
			b0, b1, b2 := bp[9], bp[10], bp[11]
			a0 := ap[6]
			c00 += a0 * b0
			c01 += a0 * b1
			c02 += a0 * b2
			a1 := ap[7]
			c10 += a1 * b0
			c11 += a1 * b1
			c12 += a1 * b2
		}
	}
	for ; p < kc; p++ {
		ap := a[p*mr : p*mr+mr : p*mr+mr]
		bp := b[p*nr : p*nr+nr : p*nr+nr]
		b0, b1, b2 := bp[0], bp[1], bp[2]
		a0, a1 := ap[0], ap[1]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
	}
	r0 := c[0:nr:nr]
	r1 := c[ldc : ldc+nr : ldc+nr]
	if store {
		r0[0], r0[1], r0[2] = alpha*c00, alpha*c01, alpha*c02
		r1[0], r1[1], r1[2] = alpha*c10, alpha*c11, alpha*c12
		return
	}
	r0[0] += alpha * c00
	r0[1] += alpha * c01
	r0[2] += alpha * c02
	r1[0] += alpha * c10
	r1[1] += alpha * c11
	r1[2] += alpha * c12
}
