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
			testKernelTile(t, microKernel[float32]{mr: 6, nr: 32, fn: sgemm6x32}, 1e-5)
			testKernelTile(t, microKernel[float64]{mr: 12, nr: 16, fn: dgemm12x16}, 1e-13)
		})
	}
}

// TestKernelForRows checks which kernel products of few rows get.
func TestKernelForRows(t *testing.T) {
	if sgemmKernelFew.fn == nil {
		t.Skip("no few-row kernel on this CPU")
	}
	for m, want := range map[int]int{1: 6, 6: 6, 7: 12, 12: 12, 16: 6, 24: 12, 30: 6, 100: 12} {
		if got := kernelForRows[float32](m).mr; got != want {
			t.Errorf("m=%d: mr %d, want %d", m, got, want)
		}
	}
	if got := kernelForRows[float64](6).mr; got != kernelFor[float64]().mr {
		t.Errorf("float64 got mr %d", got)
	}
}
