//go:build !purego

package accel

import "golang.org/x/sys/cpu"

// winoInputAVX2 is winoInputLanes for float32 (winograd_amd64.s); n is a
// positive multiple of 8, strides in elements.
//
//go:noescape
func winoInputAVX2(n int, d *float32, ds int, v *float32, vs int)

// winoOutputAVX2 is winoOutputLanes for float32 (winograd_amd64.s); n is
// a positive multiple of 8, strides in elements.
//
//go:noescape
func winoOutputAVX2(n int, m *float32, ms int, o *float32, os int)

func winoInput32(n int, d []float32, ds int, v []float32, vs int) {
	_, _ = d[35*ds+n-1], v[35*vs+n-1]
	winoInputAVX2(n, &d[0], ds, &v[0], vs)
}

func winoOutput32(n int, m []float32, ms int, o []float32, os int) {
	_, _ = m[35*ms+n-1], o[15*os+n-1]
	winoOutputAVX2(n, &m[0], ms, &o[0], os)
}

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		winoInputKernel = winoInput32
		winoOutputKernel = winoOutput32
	}
}
