package ops

import (
	"fmt"
	"slices"
)

// Index-map ops: ops whose output element i is one element of their data
// (input 0), or a fill value, chosen by the attributes, the shapes, the
// values of index inputs (sequence lengths, indices) or the order of the
// data's values (sort): SwapAxis, broadcast_axis, diag, Pad, Crop,
// UpSampling, the Sequence ops, gather_nd, sort. Each is defined by a gatherDef, which registers the op and,
// unless it has a gradient rule of its own, its gradient _backward_NAME:
// ograd added into zeros shaped like the data at the positions the op
// read (the adjoint of the gather).

// gatherDef defines an index-map op.
type gatherDef[A any] struct {
	Name    string
	Aliases []string
	Kind    string
	Doc     string
	// Inputs names the inputs: the data first; the others are read for
	// their values and get no gradient.
	Inputs     []string
	InputNames func(a *A) []string
	Check      func(a *A) error
	// Shape infers the output's shape from the inputs'.
	Shape func(a *A, in []Shape) (Shape, error)
	// Index lists, for each element of the output, the offset in the data
	// (in[0]; its values are there, for ops such as sort that read them)
	// of the element it takes, or
	// -1 where the output takes the fill value.
	Index func(a *A, in []Value) ([]int, error)
	// Fill is the value of the elements Index maps to -1 (nil: 0).
	Fill func(a *A) float64
	// Grad, when set, is the gradient rule, and no _backward_ op is
	// registered.
	Grad func(f F, a *A, in, out, g []Tensor) []Tensor
	// Samples are the op's; BackSamples those of its _backward_ op, whose
	// inputs are the ograd then the op's inputs.
	Samples, BackSamples []Sample
}

// registerGather registers an index-map op and, unless def.Grad is set,
// its _backward_ op. It returns the op.
func registerGather[A any](def gatherDef[A]) *Op {
	fwd, registerBack := gatherOp(def)
	op := Register(fwd)
	registerBack()
	return op
}

// gatherOp returns the definition of an index-map op, for an op that
// extends it before registering, and the function that then registers its
// _backward_ op (which does nothing when def.Grad is set).
func gatherOp[A any](def gatherDef[A]) (Def[A], func()) {
	var back *Op
	fwd := Def[A]{
		Name: def.Name, Aliases: def.Aliases, Kind: def.Kind, Doc: def.Doc,
		Inputs: def.Inputs, InputNames: def.InputNames, Check: def.Check,
		Shape: func(a *A, in []Shape) ([]Shape, error) {
			s, err := def.Shape(a, in)
			return []Shape{s}, err
		},
		DType: func(_ *A, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *A, in, out []Value) error {
			idx, err := def.Index(a, in)
			if err != nil {
				return err
			}
			fill := 0.0
			if def.Fill != nil {
				fill = def.Fill(a)
			}
			return gatherFill(out[0].Data, in[0].Data, idx, fill)
		},
		Grad:    def.Grad,
		Samples: def.Samples,
	}
	if def.Grad == nil {
		fwd.Grad = func(f F, a *A, in, _, g []Tensor) []Tensor {
			grads := make([]Tensor, len(in))
			grads[0] = f.callA(back, a, append([]Tensor{g[0]}, in...)...)
			return grads
		}
	}
	if def.Grad != nil {
		return fwd, func() {}
	}
	inputs := func(a *A) []string {
		names := def.Inputs
		if def.InputNames != nil {
			names = def.InputNames(a)
		}
		return append([]string{"ograd"}, names...)
	}
	return fwd, func() { back = registerGatherBackward(def, inputs) }
}

// registerGatherBackward registers the _backward_ op of an index-map op.
func registerGatherBackward[A any](def gatherDef[A], inputs func(a *A) []string) *Op {
	return Register(Def[A]{
		Name: "_backward_" + def.Name, Kind: def.Kind,
		Doc:        "The gradient of " + def.Name + " with respect to its data: ograd added into zeros shaped like the data at the positions " + def.Name + " read.",
		InputNames: inputs,
		Shape: func(a *A, in []Shape) ([]Shape, error) {
			want, err := def.Shape(a, in[1:])
			if err != nil {
				return nil, err
			}
			if err := checkOgrad(in[0], want, def.Name+"'s result"); err != nil {
				return nil, err
			}
			return []Shape{in[1].Clone()}, nil
		},
		DType: func(_ *A, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *A, in, out []Value) error {
			idx, err := def.Index(a, in[1:])
			if err != nil {
				return err
			}
			fillData(out[0].Data, 0)
			return scatterAddMapped(out[0].Data, in[0].Data, idx)
		},
		Samples: def.BackSamples,
	})
}

// gatherFill sets dst[i] = src[idx[i]], or fill where idx[i] < 0.
func gatherFill(dst, src any, idx []int, fill float64) error {
	switch d := dst.(type) {
	case []float32:
		return gatherFillLoop(d, src, idx, float32(fill))
	case []float64:
		return gatherFillLoop(d, src, idx, fill)
	case []uint8:
		return gatherFillLoop(d, src, idx, uint8(fill))
	case []int8:
		return gatherFillLoop(d, src, idx, int8(fill))
	case []int32:
		return gatherFillLoop(d, src, idx, int32(fill))
	case []int64:
		return gatherFillLoop(d, src, idx, int64(fill))
	case []bool:
		return gatherFillLoop(d, src, idx, fill != 0)
	}
	return fmt.Errorf("no kernel for data of type %T", dst)
}

func gatherFillLoop[T any](d []T, src any, idx []int, fill T) error {
	s, ok := src.([]T)
	if !ok {
		return fmt.Errorf("input is %T but output is %T", src, d)
	}
	for i, j := range idx {
		if j < 0 {
			d[i] = fill
		} else {
			d[i] = s[j]
		}
	}
	return nil
}

// scatterAddMapped adds src[i] into dst[idx[i]] where idx[i] >= 0.
func scatterAddMapped(dst, src any, idx []int) error {
	if !slices.ContainsFunc(idx, func(j int) bool { return j < 0 }) {
		return scatterAddElems(dst, src, idx)
	}
	var from, to []int
	for i, j := range idx {
		if j >= 0 {
			from, to = append(from, i), append(to, j)
		}
	}
	return scatterAddElems(dst, gatherData(src, from), to)
}

// gatherData returns the elements of data at idx, as a new slice.
func gatherData(data any, idx []int) any {
	dt, _ := DTypeOfData(data)
	out := MakeData(dt, len(idx))
	_ = moveElems(out, data, idx, false)
	return out
}

// coordMap builds an index map by coordinates: for each element of an
// output of shape out, in row-major order, src gets the output's
// coordinates and fills the coordinates of the element of the data
// (shape data) it takes, or returns false for the fill value.
func coordMap(out, data Shape, src func(oc, ic []int) bool) []int {
	n := out.Size()
	idx := make([]int, n)
	oc := make([]int, len(out))
	ic := make([]int, len(data))
	st := data.Strides()
	for i := range n {
		if src(oc, ic) {
			off := 0
			for d, c := range ic {
				off += c * st[d]
			}
			idx[i] = off
		} else {
			idx[i] = -1
		}
		for d := len(out) - 1; d >= 0; d-- {
			oc[d]++
			if oc[d] < out[d] {
				break
			}
			oc[d] = 0
		}
	}
	return idx
}

// indexValues reads an index input's values as integers (truncating, as
// a C cast does).
func indexValues(v Value) []int {
	fs := v.Float64s()
	out := make([]int, len(fs))
	for i, x := range fs {
		out[i] = int(x)
	}
	return out
}
