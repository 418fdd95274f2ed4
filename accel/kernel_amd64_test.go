//go:build !purego

package accel

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestKernelTileAMD64 checks every assembly kernel the CPU can run, not only
// the selected one.
func TestKernelTileAMD64(t *testing.T) {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		t.Run("avx2", func(t *testing.T) {
			testKernelTile(t, microKernel[float32]{mr: 6, nr: 16, fn: sgemm6x16}, 1e-5)
			testKernelTile(t, microKernel[float64]{mr: 6, nr: 8, fn: dgemm6x8}, 1e-13)
		})
	}
	if cpu.X86.HasAVX512F {
		t.Run("avx512", func(t *testing.T) {
			testKernelTile(t, microKernel[float32]{mr: 12, nr: 32, fn: sgemm12x32}, 1e-5)
			testKernelTile(t, microKernel[float64]{mr: 12, nr: 16, fn: dgemm12x16}, 1e-13)
		})
	}
}
