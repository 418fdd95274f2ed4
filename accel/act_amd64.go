//go:build !purego

package accel

import "golang.org/x/sys/cpu"

// tanhAVX2 is tanh32s's vector loop (act_amd64.s): n a positive multiple
// of 8.
//
//go:noescape
func tanhAVX2(n int, x, y *float32, sigmoid bool)

func tanh32AVX2(x, y []float32, sigmoid bool) {
	y = y[:len(x)]
	tanhAVX2(len(x), &x[0], &y[0], sigmoid)
}

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		tanhKernel = tanh32AVX2
	}
}
