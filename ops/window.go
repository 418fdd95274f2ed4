package ops

import (
	"strconv"
	"strings"
)

// The window of the ops that slide one over 1-D or 2-D data, Convolution,
// Deconvolution and Pooling: its sizes with their defaults applied, the
// checks of their attributes and the size of their output.

// convWindow is the sizes of a 1-D or 2-D window op, one entry per spatial dim,
// with the defaults of empty tuples applied.
type convWindow struct {
	kernel, stride, dilate, pad []int
}

func newWindow(kernel, stride, dilate, pad Tuple) convWindow {
	n := len(kernel)
	return convWindow{kernel: []int(kernel), stride: orFill(stride, n, 1), dilate: orFill(dilate, n, 1), pad: orFill(pad, n, 0)}
}

// fillZeros and fillOnes are the common defaults of orFill, shared so that
// kernels working out their window on every call allocate nothing.
var (
	fillZeros = []int{0, 0, 0, 0}
	fillOnes  = []int{1, 1, 1, 1}
)

// orFill returns t, or n copies of v when t is empty. The result may be
// shared: callers must not write to it.
func orFill(t Tuple, n, v int) []int {
	if len(t) > 0 {
		return []int(t)
	}
	switch {
	case v == 0 && n <= len(fillZeros):
		return fillZeros[:n:n]
	case v == 1 && n <= len(fillOnes):
		return fillOnes[:n:n]
	}
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// checkKernelDims rejects kernels that are not 1-D or 2-D.
func checkKernelDims(kernel Tuple) error {
	switch len(kernel) {
	case 1, 2:
		return nil
	case 0:
		return Errorf("kernel is required: (w,) for 1-D or (h, w) for 2-D")
	}
	return Errorf("kernel %v is %d-D; only 1-D (NCW) and 2-D (NCHW) windows are supported", kernel, len(kernel))
}

// check validates the window and the filter counts of a (de)convolution.
func (w convWindow) check(numFilter, numGroup int, layout string) error {
	k := Tuple(w.kernel)
	if err := checkKernelDims(k); err != nil {
		return err
	}
	for i, t := range [][]int{w.stride, w.dilate, w.pad} {
		if len(t) != len(k) {
			name := []string{"stride", "dilate", "pad"}[i]
			return Errorf("%s %v must have %d values like kernel %v, or be ()", name, Tuple(t), len(k), k)
		}
	}
	for i := range k {
		switch {
		case k[i] <= 0:
			return Errorf("kernel %v must be positive", k)
		case w.stride[i] <= 0:
			return Errorf("stride %v must be positive", Tuple(w.stride))
		case w.dilate[i] <= 0:
			return Errorf("dilate %v must be positive", Tuple(w.dilate))
		case w.pad[i] < 0:
			return Errorf("pad %v must not be negative", Tuple(w.pad))
		}
	}
	switch {
	case numFilter <= 0:
		return Errorf("num_filter=%d must be positive", numFilter)
	case numGroup <= 0:
		return Errorf("num_group=%d must be positive", numGroup)
	case numFilter%numGroup != 0:
		return Errorf("num_filter=%d is not divisible by num_group=%d", numFilter, numGroup)
	}
	return checkLayout(layout, len(k))
}

// checkLayout accepts "None" and the channels-first layout of nd spatial dims.
func checkLayout(layout string, nd int) error {
	want := channelsFirst(nd)
	switch {
	case layout == "None" || layout == "" || layout == want:
		return nil
	case strings.HasPrefix(layout, "NC"):
		return Errorf("layout %s does not match a %d-D window (want %s)", layout, nd, want)
	}
	return Errorf("layout %s is not supported: data must be channels-first (NCW or NCHW); transpose it first", layout)
}

// channelsFirst names the channels-first layout of nd spatial dims.
func channelsFirst(nd int) string {
	switch nd {
	case 1:
		return "NCW"
	case 2:
		return "NCHW"
	}
	return "NCDHW"
}

// span is the extent of dim i of the dilated kernel.
func (w convWindow) span(i int) int { return w.dilate[i]*(w.kernel[i]-1) + 1 }

// dims prints sizes as "5x5" (or "5" for one dim).
func dims(v []int) string {
	parts := make([]string, len(v))
	for i, d := range v {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

// convOutput gives the output spatial size of a convolution over spatial
// (0 = unknown, giving 0), or an error when the dilated kernel does not fit
// in the padded data.
func (w convWindow) convOutput(data Shape) ([]int, error) {
	nd := len(w.kernel)
	spatial := data[2:]
	out := make([]int, nd)
	spans, padded := make([]int, nd), make([]int, nd)
	fits := true
	for i, in := range spatial {
		spans[i], padded[i] = w.span(i), in+2*w.pad[i]
		if in > 0 && padded[i] < spans[i] {
			fits = false
		}
	}
	if !fits {
		return nil, Errorf("kernel %v with dilate %v spans %s, larger than data %v padded to %s (pad %v)",
			Tuple(w.kernel), Tuple(w.dilate), dims(spans), data, dims(padded), Tuple(w.pad))
	}
	for i, in := range spatial {
		if in > 0 {
			out[i] = (padded[i]-spans[i])/w.stride[i] + 1
		}
	}
	return out, nil
}

// checkData checks that data has the rank of the window.
func checkData(name string, data Shape, kernel Tuple) error {
	nd := len(kernel)
	if len(data) != nd+2 {
		return Errorf("%s %v must be %s (%d dims) for kernel %v", name, data, channelsFirst(nd), nd+2, kernel)
	}
	return nil
}
