//go:build !purego

package accel

import "golang.org/x/sys/cpu"

// Assembly micro-kernels (kernel_amd64.s). Each multiplies a full mr x kc
// packed A panel by a kc x nr packed B panel and adds alpha times the product
// into the mr x nr tile of C at c (row stride ldc, in elements). kc >= 1.
//
//go:noescape
func sgemm6x16AVX2(kc int, alpha float32, a, b, c *float32, ldc int)

//go:noescape
func dgemm6x8AVX2(kc int, alpha float64, a, b, c *float64, ldc int)

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		sgemmKernel = microKernel[float32]{mr: 6, nr: 16, fn: sgemm6x16}
		dgemmKernel = microKernel[float64]{mr: 6, nr: 8, fn: dgemm6x8}
		kernelName = "avx2"
	}
}

// sgemm6x16 and dgemm6x8 check the slice bounds the assembly relies on (the
// last element of each panel and of the C tile) before handing it pointers.
func sgemm6x16(kc int, alpha float32, a, b, c []float32, ldc int) {
	const mr, nr = 6, 16
	if kc < 1 {
		return
	}
	_ = a[mr*kc-1]
	_ = b[nr*kc-1]
	_ = c[(mr-1)*ldc+nr-1]
	sgemm6x16AVX2(kc, alpha, &a[0], &b[0], &c[0], ldc)
}

func dgemm6x8(kc int, alpha float64, a, b, c []float64, ldc int) {
	const mr, nr = 6, 8
	if kc < 1 {
		return
	}
	_ = a[mr*kc-1]
	_ = b[nr*kc-1]
	_ = c[(mr-1)*ldc+nr-1]
	dgemm6x8AVX2(kc, alpha, &a[0], &b[0], &c[0], ldc)
}
