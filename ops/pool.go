package ops

import (
	"github.com/hybridgo/hybridgo/accel"
)

// Pooling over 1-D (NCW) and 2-D (NCHW) windows: max, average and sum,
// local or global, with MXNet's "valid" and "full" output conventions.

// PoolingAttrs are the attributes of Pooling (MXNet's PoolingParam).
type PoolingAttrs struct {
	Kernel            Tuple  `attr:"kernel" default:"()" doc:"window size: (w,) for 1-D, (h, w) for 2-D; ignored with global_pool"`
	PoolType          string `attr:"pool_type" default:"max" enum:"max,avg,sum,lp" doc:"max, avg or sum (lp is not supported)"`
	GlobalPool        bool   `attr:"global_pool" default:"False" doc:"pool over the whole of each plane, ignoring kernel, stride and pad"`
	CudnnOff          bool   `attr:"cudnn_off" default:"False" doc:"turn cuDNN off; ignored"`
	PoolingConvention string `attr:"pooling_convention" default:"valid" enum:"full,same,valid" doc:"valid rounds the output size down, full rounds it up (same is not supported)"`
	Stride            Tuple  `attr:"stride" default:"()" doc:"step between windows; () means 1 in every dim"`
	Pad               Tuple  `attr:"pad" default:"()" doc:"padding on both sides of each spatial dim; () means 0"`
	PValue            OptInt `attr:"p_value" default:"None" doc:"the p of lp pooling; ignored"`
	CountIncludePad   bool   `attr:"count_include_pad" default:"True" doc:"avg pooling: count the padding in each window's divisor"`
	Layout            string `attr:"layout" default:"None" enum:"None,NCW,NCHW,NCDHW,NWC,NHWC,NDHWC" doc:"data layout; only channels-first NCW and NCHW are supported"`
}

var opPooling, opPoolingGrad *Op

func init() {
	opPooling = Register(Def[PoolingAttrs]{
		Name: "Pooling",
		Kind: "pool",
		Doc: "Max, average or sum pooling of 1-D (NCW) or 2-D (NCHW) data over windows of size kernel with stride and pad, " +
			"or over whole planes with global_pool. Output dims are 1 + (in + 2*pad - kernel)/stride, rounded down (valid) or up (full).",
		Inputs: []string{"data"},
		Check:  func(a *PoolingAttrs) error { return a.check() },
		Shape: func(a *PoolingAttrs, in []Shape) ([]Shape, error) {
			out, err := poolShape(a, in[0])
			return []Shape{out}, err
		},
		Kernel: func(_ *Env, a *PoolingAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			g, err := a.geom(in[0].Shape)
			if err != nil {
				return err
			}
			switch x := in[0].Data.(type) {
			case []float32:
				poolForward(a, g, x, out[0].Data.([]float32))
			case []float64:
				poolForward(a, g, x, out[0].Data.([]float64))
			}
			return nil
		},
		Grad: func(f F, a *PoolingAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.poolingGrad(a, g[0], in[0])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"kernel": "(2, 2)", "stride": "(2, 2)"}, Inputs: []Shape{{2, 3, 4, 4}}},
			{Attrs: map[string]string{"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)", "pool_type": "avg"}, Inputs: []Shape{{1, 2, 5, 5}}},
			{Attrs: map[string]string{"kernel": "(3, 2)", "stride": "(2, 1)", "pad": "(1, 1)", "pool_type": "avg", "count_include_pad": "False"}, Inputs: []Shape{{1, 2, 5, 4}}},
			{Attrs: map[string]string{"kernel": "(2, 2)", "stride": "(2, 2)", "pool_type": "sum", "pooling_convention": "full"}, Inputs: []Shape{{1, 2, 5, 5}}},
			{Attrs: map[string]string{"kernel": "(3, 3)", "stride": "(2, 2)", "pooling_convention": "full"}, Inputs: []Shape{{1, 2, 6, 6}}},
			{Attrs: map[string]string{"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)", "pool_type": "avg", "pooling_convention": "full", "count_include_pad": "False"}, Inputs: []Shape{{1, 1, 6, 6}}},
			{Attrs: map[string]string{"pool_type": "avg", "global_pool": "True"}, Inputs: []Shape{{2, 3, 4, 5}}},
			{Attrs: map[string]string{"kernel": "(2, 2)", "global_pool": "True"}, Inputs: []Shape{{2, 2, 3, 3}}},
			{Attrs: map[string]string{"kernel": "(3,)", "stride": "(2,)", "layout": "NCW"}, Inputs: []Shape{{2, 3, 7}}},
			{Attrs: map[string]string{"kernel": "(3,)", "pad": "(1,)", "pool_type": "avg"}, Inputs: []Shape{{2, 2, 5}}},
			{Attrs: map[string]string{"pool_type": "sum", "global_pool": "True"}, Inputs: []Shape{{2, 3, 6}}},
		},
	})

	opPoolingGrad = Register(Def[PoolingAttrs]{
		Name: "_backward_Pooling",
		Kind: "pool",
		Doc: "The data gradient of Pooling: each ograd element goes to its window's first maximum in data (max), " +
			"or is spread over its window (avg, divided by the window's count; sum).",
		Inputs: []string{"ograd", "data"},
		Check:  func(a *PoolingAttrs) error { return a.check() },
		Shape: func(a *PoolingAttrs, in []Shape) ([]Shape, error) {
			y, err := poolShape(a, in[1])
			if err != nil {
				return nil, err
			}
			if _, err := sameShape(in[0], y); err != nil {
				return nil, Errorf("ograd %v does not match the pooling's output %v for data %v", in[0], y, in[1])
			}
			return []Shape{in[1].Clone()}, nil
		},
		Kernel: func(_ *Env, a *PoolingAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			g, err := a.geom(in[1].Shape)
			if err != nil {
				return err
			}
			switch gy := in[0].Data.(type) {
			case []float32:
				poolBackward(a, g, gy, in[1].Data.([]float32), out[0].Data.([]float32))
			case []float64:
				poolBackward(a, g, gy, in[1].Data.([]float64), out[0].Data.([]float64))
			}
			return nil
		},
		// Average and sum pooling are linear, and their backward is their
		// adjoint, so its gradient is the pooling itself; it does not depend
		// on data. Max pooling's would need a gather at each window's maximum,
		// which no op does yet.
		Grad: func(f F, a *PoolingAttrs, _, _, g []Tensor) []Tensor {
			if a.PoolType == "max" {
				panic(&Error{Op: "_backward_Pooling", Msg: "the second-order gradient of max pooling is not supported (avg and sum pooling have one)"})
			}
			return []Tensor{f.callA(opPooling, a, g[0]), nil}
		},
		Samples: []Sample{
			// Max pooling has no second-order rule (see Grad above).
			{Attrs: map[string]string{"kernel": "(2, 2)", "stride": "(2, 2)"}, Inputs: []Shape{{2, 2, 2, 2}, {2, 2, 4, 4}}, NoGradCheck: true},
			{Attrs: map[string]string{"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)", "pool_type": "avg", "count_include_pad": "False"}, Inputs: []Shape{{1, 2, 3, 3}, {1, 2, 5, 5}}},
			{Attrs: map[string]string{"kernel": "(2,)", "stride": "(2,)", "pool_type": "sum", "pooling_convention": "full"}, Inputs: []Shape{{2, 2, 3}, {2, 2, 5}}},
			{Attrs: map[string]string{"pool_type": "avg", "global_pool": "True"}, Inputs: []Shape{{1, 3, 1, 1}, {1, 3, 3, 4}}},
		},
	})
}

// check validates the attributes that do not depend on the data.
func (a *PoolingAttrs) check() error {
	switch {
	case a.PoolType == "lp":
		return Errorf("pool_type lp is not supported (max, avg and sum are)")
	case a.PoolingConvention == "same":
		return Errorf("pooling_convention same is not supported (valid and full are)")
	case a.GlobalPool:
		return nil
	}
	if err := checkKernelDims(a.Kernel); err != nil {
		if len(a.Kernel) == 0 {
			return Errorf("kernel is required unless global_pool=True: (w,) for 1-D or (h, w) for 2-D")
		}
		return err
	}
	w := a.win()
	for i, t := range [][]int{w.stride, w.pad} {
		if len(t) != len(a.Kernel) {
			name := []string{"stride", "pad"}[i]
			return Errorf("%s %v must have %d values like kernel %v, or be ()", name, Tuple(t), len(a.Kernel), a.Kernel)
		}
	}
	for i := range a.Kernel {
		switch {
		case w.kernel[i] <= 0:
			return Errorf("kernel %v must be positive", a.Kernel)
		case w.stride[i] <= 0:
			return Errorf("stride %v must be positive", Tuple(w.stride))
		case w.pad[i] < 0:
			return Errorf("pad %v must not be negative", Tuple(w.pad))
		}
	}
	return checkLayout(a.Layout, len(a.Kernel))
}

func (a *PoolingAttrs) win() convWindow { return newWindow(a.Kernel, a.Stride, nil, a.Pad) }

// poolShape is Pooling's shape rule.
func poolShape(a *PoolingAttrs, data Shape) (Shape, error) {
	return poolShapeTo(make(Shape, 0, len(data)), a, data)
}

// poolShapeTo is poolShape appending the output shape to dst[:0], so that
// a kernel can keep it on the stack.
func poolShapeTo(dst Shape, a *PoolingAttrs, data Shape) (Shape, error) {
	if a.GlobalPool {
		if len(data) != 3 && len(data) != 4 {
			return nil, Errorf("data %v must be NCW or NCHW (3 or 4 dims) for global pooling", data)
		}
		if err := checkLayout(a.Layout, len(data)-2); err != nil {
			return nil, err
		}
		out := append(dst[:0], data[0], data[1], 1, 1)
		return out[:len(data)], nil
	}
	if err := checkData("data", data, a.Kernel); err != nil {
		return nil, err
	}
	w := a.win()
	out := append(dst[:0], data[0], data[1])
	for i, k := range w.kernel {
		in := data[2+i]
		if in == 0 {
			out = append(out, 0)
			continue
		}
		padded := in + 2*w.pad[i]
		if k > padded {
			return nil, Errorf("kernel %v is larger than data %v padded to %s (pad %v)", a.Kernel, data, dims(paddedDims(data, w.pad)), Tuple(w.pad))
		}
		n := padded - k
		if a.PoolingConvention == "full" {
			out = append(out, 1+(n+w.stride[i]-1)/w.stride[i])
		} else {
			out = append(out, 1+n/w.stride[i])
		}
	}
	return out, nil
}

func paddedDims(data Shape, pad []int) []int {
	p := make([]int, len(pad))
	for i := range pad {
		p[i] = data[2+i] + 2*pad[i]
	}
	return p
}

// geom is the accel geometry of pooling data, 1-D windows becoming 2-D
// ones of height 1.
func (a *PoolingAttrs) geom(data Shape) (accel.PoolGeom, error) {
	var buf [4]int
	out, err := poolShapeTo(buf[:0], a, data)
	if err != nil {
		return accel.PoolGeom{}, err
	}
	nd := len(data) - 2
	g := accel.PoolGeom{Planes: data[0] * data[1], InH: 1, OutH: 1, KernelH: 1, StrideH: 1}
	g.InW, g.OutW = data[len(data)-1], out[len(out)-1]
	if nd == 2 {
		g.InH, g.OutH = data[2], out[2]
	}
	if a.GlobalPool {
		g.KernelH, g.KernelW, g.StrideW = g.InH, g.InW, 1
		return g, nil
	}
	w := a.win()
	g.KernelW, g.StrideW, g.PadW = w.kernel[nd-1], w.stride[nd-1], w.pad[nd-1]
	if nd == 2 {
		g.KernelH, g.StrideH, g.PadH = w.kernel[0], w.stride[0], w.pad[0]
	}
	return g, nil
}

func poolForward[T accel.Float](a *PoolingAttrs, g accel.PoolGeom, x, y []T) {
	if a.PoolType == "max" {
		accel.MaxPool(g, x, y)
		return
	}
	accel.AvgPool(g, x, y, a.CountIncludePad, a.PoolType == "sum")
}

func poolBackward[T accel.Float](a *PoolingAttrs, g accel.PoolGeom, gy, x, gx []T) {
	if a.PoolType == "max" {
		accel.MaxPoolBackward(g, x, gy, gx)
		return
	}
	accel.AvgPoolBackward(g, gy, gx, a.CountIncludePad, a.PoolType == "sum")
}

// poolingGrad runs _backward_Pooling.
func (f F) poolingGrad(a *PoolingAttrs, ograd, data Tensor) Tensor {
	return f.callA(opPoolingGrad, a, ograd, data)
}

// Pooling pools x (NCW or NCHW) over windows of size kernel; poolType is
// "max", "avg" or "sum". Other attributes (stride, pad, global_pool,
// pooling_convention, count_include_pad) go in attrs:
//
//	y := F.Pooling(x, []int{2, 2}, "max", ops.Attr{"stride", []int{2, 2}})
//	g := F.Pooling(x, nil, "avg", ops.Attr{"global_pool", true})
func (f F) Pooling(x Tensor, kernel []int, poolType string, attrs ...Attr) Tensor {
	return f.call1(opPooling, append([]Attr{{"kernel", Tuple(kernel)}, {"pool_type", poolType}}, attrs...), x)
}
