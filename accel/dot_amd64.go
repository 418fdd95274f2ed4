//go:build !purego

package accel

import "golang.org/x/sys/cpu"

// sdotAVX2 returns the dot product of n float32s at x and y; n is a
// positive multiple of 8.
//
//go:noescape
func sdotAVX2(n int, x, y *float32) float32

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		sdotKernel = sdot
	}
}

// sdot is the dot product of x and y[:len(x)]: the assembly kernel for the
// multiple-of-8 head, then the tail in Go.
func sdot(x, y []float32) float32 {
	y = y[:len(x)]
	n := len(x) &^ 7
	var s float32
	if n > 0 {
		s = sdotAVX2(n, &x[0], &y[0])
	}
	for i := n; i < len(x); i++ {
		s += x[i] * y[i]
	}
	return s
}
