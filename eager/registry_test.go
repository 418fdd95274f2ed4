package eager_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// These tests walk the op registry: every op, with every sample its
// definition lists, is checked the same way. Adding an op with samples is
// enough to have it tested.

func TestEveryOpHasSamplesAndGradient(t *testing.T) {
	for _, op := range ops.All() {
		if len(op.Samples()) == 0 {
			t.Errorf("%s: no samples: add at least one to its definition", op.Name())
		}
		// Ops that compute other ops' gradients (_backward_*) may lack a
		// rule of their own: differentiating through them is refused with
		// a clear error. Every other op must say how to differentiate it.
		if !op.Differentiable() && !strings.HasPrefix(op.Name(), "_backward_") {
			t.Errorf("%s: neither a gradient rule nor NoGrad", op.Name())
		}
		if op.Doc() == "" {
			t.Errorf("%s: no doc", op.Name())
		}
	}
}

func cases(t *testing.T) []optest.Case {
	cs, errs := optest.Cases()
	for _, err := range errs {
		t.Error(err)
	}
	return cs
}

func TestRegistryShapesAndKernels(t *testing.T) {
	for _, c := range cases(t) {
		op, attrs := c.Op, c.Attrs
		// Attributes print back to a form that parses to the same thing.
		again, err := op.ParseAttrs(op.FormatAttrs(attrs))
		if err != nil || op.AttrString(again) != op.AttrString(attrs) {
			t.Errorf("%s: attrs do not round-trip: %q -> %q (%v)", c.Name, op.AttrString(attrs), op.AttrString(again), err)
		}
		for _, dt := range []ops.DType{ops.Float32, ops.Float64} {
			in := c.Inputs(dt, 1)
			shapes := make([]ops.Shape, len(in))
			dtypes := make([]ops.DType, len(in))
			for j, a := range in {
				shapes[j], dtypes[j] = a.Shape(), a.DType()
			}
			outShapes, _, err := op.InferShape(attrs, shapes)
			if err != nil {
				t.Errorf("%s %v: shape inference failed: %v", c.Name, dt, err)
				continue
			}
			outTypes, err := op.InferDType(attrs, dtypes)
			if err != nil {
				t.Errorf("%s %v: dtype inference failed: %v", c.Name, dt, err)
				continue
			}
			out, err := eager.Run(op, attrs, in...)
			if err != nil {
				t.Errorf("%s %v: kernel failed: %v", c.Name, dt, err)
				continue
			}
			for j, o := range out {
				if !o.Shape().Equal(outShapes[j]) || ops.DataLen(o.Data()) != outShapes[j].Size() || o.DType() != outTypes[j] {
					t.Errorf("%s %v: output %d is %v %v with %d elements; the rules say %v %v",
						c.Name, dt, j, o.Shape(), o.DType(), ops.DataLen(o.Data()), outShapes[j], outTypes[j])
				}
			}
			// Shape inference must also survive an unknown first dim.
			if len(shapes) > 0 && len(shapes[0]) > 0 {
				partial := append([]ops.Shape{}, shapes...)
				partial[0] = shapes[0].Clone()
				partial[0][0] = 0
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s: shape rule panics on an unknown dim: %v", c.Name, r)
						}
					}()
					op.InferShape(attrs, partial)
				}()
			}
		}
	}
}

// TestRegistryDTypesAgree runs every sample in float32 and float64 on the
// same values and compares.
func TestRegistryDTypesAgree(t *testing.T) {
	for _, c := range cases(t) {
		if c.Random() {
			continue
		}
		a32, e32 := eager.Run(c.Op, c.Attrs, c.Inputs(ops.Float32, 3)...)
		a64, e64 := eager.Run(c.Op, c.Attrs, c.Inputs(ops.Float64, 3)...)
		if e32 != nil || e64 != nil {
			continue // reported by TestRegistryShapesAndKernels
		}
		for j := range a32 {
			x, y := a32[j].Float64s(), a64[j].Float64s()
			if k := optest.FirstDiff(x, y, 1e-3, 1e-3); k >= 0 {
				t.Errorf("%s: output %d[%d]: float32 gives %v, float64 %v", c.Name, j, k, x[k], y[k])
			}
		}
	}
}

// TestRegistryGradients compares every gradient rule with central
// differences in float64: L = sum_k w_k * out_k for fixed random w.
func TestRegistryGradients(t *testing.T) {
	for _, c := range cases(t) {
		if !c.Op.HasGradRule() || c.Random() || c.Sample.NoGradCheck {
			continue
		}
		checkGradient(t, c)
	}
}

func checkGradient(t *testing.T, c optest.Case) {
	t.Helper()
	op, attrs := c.Op, c.Attrs
	in := c.Inputs(ops.Float64, 5)
	varIdx := c.DiffInputs(in)
	if len(varIdx) == 0 {
		return
	}
	vars := make([]*eager.NDArray, len(varIdx))
	for k, j := range varIdx {
		in[j].AttachGrad()
		vars[k] = in[j]
	}
	visible := op.NumVisibleOutputs(attrs)
	var out []*eager.NDArray
	var err error
	eager.Record(func() { out, err = eager.Run(op, attrs, in...) })
	if err != nil {
		t.Errorf("%s: %v", c.Name, err)
		return
	}
	r := rand.New(rand.NewPCG(11, 13))
	weights := make([][]float64, visible)
	heads := out[:visible]
	headGrads := make([]*eager.NDArray, visible)
	for k := range heads {
		w := make([]float64, heads[k].Size())
		for j := range w {
			w[j] = r.Float64()*2 - 1
		}
		weights[k] = w
		headGrads[k] = eager.Array(w, heads[k].Shape()...)
	}
	loss := func(out []*eager.NDArray) float64 {
		total := 0.0
		for k := 0; k < visible; k++ {
			for j, v := range out[k].Float64s() {
				total += weights[k][j] * v
			}
		}
		return total
	}
	grads, err := eager.Grad(heads, vars, headGrads, false, false)
	if err != nil {
		t.Errorf("%s: backward failed: %v", c.Name, err)
		return
	}
	const eps = 1e-6
	for v, a := range vars {
		data := a.Data().([]float64)
		analytic := grads[v].Float64s()
		for j := range data {
			orig := data[j]
			data[j] = orig + eps
			var plus, minus []*eager.NDArray
			eager.TrainMode(func() { plus, _ = eager.Run(op, attrs, in...) })
			data[j] = orig - eps
			eager.TrainMode(func() { minus, _ = eager.Run(op, attrs, in...) })
			data[j] = orig
			numeric := (loss(plus) - loss(minus)) / (2 * eps)
			if !optest.Close(analytic[j], numeric, 1e-4, 1e-5) {
				t.Errorf("%s: d/d%s[%d]: rule gives %.8g, central difference %.8g", c.Name, op.InputNames(attrs)[varIdx[v]], j, analytic[j], numeric)
				break
			}
		}
	}
}

func TestUnknownOpAndAttrErrors(t *testing.T) {
	op := ops.MustLookup("_plus_scalar")
	_, err := op.ParseAttrs(map[string]string{"scalr": "1"})
	if err == nil || !strings.Contains(err.Error(), `unknown attribute "scalr"`) || !strings.Contains(err.Error(), "scalar") {
		t.Errorf("misspelled attribute: got %v", err)
	}
	_, err = op.ParseAttrs(map[string]string{"scalar": "abc"})
	if err == nil || !strings.Contains(err.Error(), `scalar="abc" is not a number`) {
		t.Errorf("bad value: got %v", err)
	}
}

// TestRegistryKernelsOverwriteOutputs runs every op not marked
// Accumulates twice: once on outputs that start at zero, once on outputs
// that hold NaN, as a reused buffer of a planned graph may. The kernel
// must write every element without reading it, so both give the same.
func TestRegistryKernelsOverwriteOutputs(t *testing.T) {
	for _, c := range cases(t) {
		if c.Op.Accumulates() {
			continue
		}
		for _, dt := range []ops.DType{ops.Float32, ops.Float64} {
			zeroed, err := runOnOutputs(c, dt, false)
			if err != nil {
				continue // reported by TestRegistryShapesAndKernels
			}
			dirty, err := runOnOutputs(c, dt, true)
			if err != nil {
				t.Errorf("%s %v: the kernel fails on outputs that hold NaN: %v", c.Name, dt, err)
				continue
			}
			for j := range zeroed {
				x, y := zeroed[j], dirty[j]
				for k := range x {
					if x[k] != y[k] && !(math.IsNaN(x[k]) && math.IsNaN(y[k])) {
						t.Errorf("%s %v: output %d[%d] is %v on a zeroed buffer and %v on one holding NaN: mark the op Accumulates, or write every element",
							c.Name, dt, j, k, x[k], y[k])
						break
					}
				}
			}
		}
	}
}

// runOnOutputs runs c's kernel directly on outputs it allocates, filled
// with NaN when dirty, and returns the outputs' values.
func runOnOutputs(c optest.Case, dt ops.DType, dirty bool) ([][]float64, error) {
	in := c.Inputs(dt, 3)
	vals := make([]ops.Value, len(in))
	shapes := make([]ops.Shape, len(in))
	dtypes := make([]ops.DType, len(in))
	for j, a := range in {
		vals[j], shapes[j], dtypes[j] = a.Value(), a.Shape(), a.DType()
	}
	outShapes, _, err := c.Op.InferShape(c.Attrs, shapes)
	if err != nil {
		return nil, err
	}
	outTypes, err := c.Op.InferDType(c.Attrs, dtypes)
	if err != nil {
		return nil, err
	}
	out := make([]ops.Value, len(outShapes))
	for j := range out {
		out[j] = ops.NewValue(outShapes[j], outTypes[j])
		if dirty {
			fillNaN(out[j].Data)
		}
	}
	env := &ops.Env{Training: true, Rand: rand.New(rand.NewPCG(5, 7))}
	if err := c.Op.Forward(env, c.Attrs, vals, out); err != nil {
		return nil, err
	}
	res := make([][]float64, len(out))
	for j, o := range out {
		res[j] = eager.FromValue(o).Float64s()
	}
	return res, nil
}

// fillNaN fills a buffer with NaN, or with a large value for integer types.
func fillNaN(data any) {
	switch d := data.(type) {
	case []float32:
		for i := range d {
			d[i] = float32(math.NaN())
		}
	case []float64:
		for i := range d {
			d[i] = math.NaN()
		}
	case []int32:
		for i := range d {
			d[i] = 1 << 30
		}
	case []int64:
		for i := range d {
			d[i] = 1 << 40
		}
	case []uint8:
		for i := range d {
			d[i] = 0xAB
		}
	case []int8:
		for i := range d {
			d[i] = 0x5B
		}
	case []bool:
		for i := range d {
			d[i] = true
		}
	default:
		panic(fmt.Sprintf("fillNaN: unexpected buffer type %T", data))
	}
}
