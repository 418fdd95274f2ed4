//go:build !purego

package accel

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

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

// winoGatherAVX2 gathers the 6x6 patches of groups of eight tiles
// (winograd_amd64.s); strides in elements.
//
//go:noescape
func winoGatherAVX2(groups int, src *float32, ss int, d *float32, ds int)

// winoScatterAVX2 scatters the 4x4 output tiles of groups of eight tiles
// (winograd_amd64.s); strides in elements.
//
//go:noescape
func winoScatterAVX2(groups int, o *float32, os int, dst *float32, ds int)

// winoGradOutPlaneAVX512 is winoGradOutLanes of the tiles of one output
// gradient plane, loaded where they lie (winograd512_amd64.s): groups of
// sixteen tiles described by lanes, ow the plane's row length, us in
// elements, t 384 elements of scratch, perm winoGradPerm.
//
//go:noescape
func winoGradOutPlaneAVX512(groups int, plane *float32, ow int, lanes *winoGradLanes, u *float32, us int, t *float32, perm *int32)

// The kernel reads a winoGradLanes' rows at byte 64 and steps 80 bytes
// to the next: a field moved or grown is a compile error here.
var (
	_ [0]struct{} = [unsafe.Offsetof(winoGradLanes{}.rows) - 64]struct{}{}
	_ [0]struct{} = [unsafe.Sizeof(winoGradLanes{}) - 80]struct{}{}
)

// winoGradPerm holds the permutations that take columns 0 and 1, and 2
// and 3, of eight tiles' rows of four out of two vectors.
var winoGradPerm = func() (p [32]int32) {
	for l := range 8 {
		p[l], p[8+l], p[16+l], p[24+l] = int32(4*l), int32(4*l+1), int32(4*l+2), int32(4*l+3)
	}
	return p
}()

func winoGradOutPlane32(l *winoGradTable, plane, u []float32, us int, scratch []float32) {
	t := scratch[:24*16]
	if len(plane) < l.need { // the last tiles' rows reach past the plane's end
		pad := scratch[24*16:][:l.need]
		clear(pad[copy(pad, plane[:l.reach]):])
		plane = pad
	}
	_ = u[35*us+16*len(l.lanes)-1]
	winoGradOutPlaneAVX512(len(l.lanes), &plane[0], l.ow, &l.lanes[0], &u[0], us, &t[0], &winoGradPerm[0])
}

func winoInput32(n int, d []float32, ds int, v []float32, vs int) {
	_, _ = d[35*ds+n-1], v[35*vs+n-1]
	winoInputAVX2(n, &d[0], ds, &v[0], vs)
}

func winoOutput32(n int, m []float32, ms int, o []float32, os int) {
	_, _ = m[35*ms+n-1], o[15*os+n-1]
	winoOutputAVX2(n, &m[0], ms, &o[0], os)
}

func winoGather32(groups int, src []float32, ss int, d []float32, ds int) {
	_, _ = src[(groups-1)*32+5*ss+35], d[35*ds+8*groups-1]
	winoGatherAVX2(groups, &src[0], ss, &d[0], ds)
}

func winoScatter32(groups int, o []float32, os int, dst []float32, ds int) {
	_, _ = o[15*os+8*groups-1], dst[3*ds+32*groups-1]
	winoScatterAVX2(groups, &o[0], os, &dst[0], ds)
}

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		winoInputKernel = winoInput32
		winoOutputKernel = winoOutput32
		winoGatherKernel = winoGather32
		winoScatterKernel = winoScatter32
	}
	if cpu.X86.HasAVX512F && !noAVX512 {
		winoGradOutPlaneKernel = winoGradOutPlane32
	}
}
