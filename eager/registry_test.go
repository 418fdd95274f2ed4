package eager

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

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

// sampleInputs makes random inputs for a sample in the given float dtype.
func sampleInputs(op *ops.Op, s ops.Sample, attrs ops.Attrs, float ops.DType, seed uint64) []*NDArray {
	r := rand.New(rand.NewPCG(seed, 7))
	low, high := s.Low, s.High
	if low == 0 && high == 0 {
		low, high = -1, 1
	}
	in := make([]*NDArray, len(s.Inputs))
	for i, shape := range s.Inputs {
		d := float
		if s.DTypes != nil && s.DTypes[i] != float && !(s.DTypes[i] == ops.Float32 && float == ops.Float64) {
			d = s.DTypes[i]
		}
		xs := make([]float64, shape.Size())
		for j := range xs {
			if n, ok := s.Ints[i]; ok {
				xs[j] = float64(r.IntN(n))
			} else {
				xs[j] = low + (high-low)*r.Float64()
			}
		}
		in[i] = &NDArray{shape: shape.Clone(), dtype: d, data: ops.FromFloat64s(d, xs)}
	}
	return in
}

func sampleName(op *ops.Op, i int, s ops.Sample) string {
	return fmt.Sprintf("%s/%d%v", op.Name(), i, s.Attrs)
}

func TestRegistryShapesAndKernels(t *testing.T) {
	for _, op := range ops.All() {
		for i, s := range op.Samples() {
			name := sampleName(op, i, s)
			attrs, err := op.ParseAttrs(s.Attrs)
			if err != nil {
				t.Errorf("%s: sample attrs do not parse: %v", name, err)
				continue
			}
			// Attributes print back to a form that parses to the same thing.
			again, err := op.ParseAttrs(op.FormatAttrs(attrs))
			if err != nil || op.AttrString(again) != op.AttrString(attrs) {
				t.Errorf("%s: attrs do not round-trip: %q -> %q (%v)", name, op.AttrString(attrs), op.AttrString(again), err)
			}
			for _, dt := range []ops.DType{ops.Float32, ops.Float64} {
				in := sampleInputs(op, s, attrs, dt, 1)
				shapes := make([]ops.Shape, len(in))
				for j, a := range in {
					shapes[j] = a.shape
				}
				outShapes, _, err := op.InferShape(attrs, shapes)
				if err != nil {
					t.Errorf("%s %v: shape inference failed: %v", name, dt, err)
					continue
				}
				out, err := Run(op, attrs, in...)
				if err != nil {
					t.Errorf("%s %v: kernel failed: %v", name, dt, err)
					continue
				}
				for j, o := range out {
					if !o.shape.Equal(outShapes[j]) || ops.DataLen(o.data) != outShapes[j].Size() {
						t.Errorf("%s %v: output %d has %d elements, shape rule says %v", name, dt, j, ops.DataLen(o.data), outShapes[j])
					}
				}
				// Shape inference must also work when the batch dim of the first input is unknown.
				if len(shapes) > 0 && len(shapes[0]) > 0 {
					partial := append([]ops.Shape{}, shapes...)
					partial[0] = shapes[0].Clone()
					partial[0][0] = 0
					func() {
						defer func() {
							if r := recover(); r != nil {
								t.Errorf("%s: shape rule panics on an unknown dim: %v", name, r)
							}
						}()
						op.InferShape(attrs, partial)
					}()
				}
			}
		}
	}
}

// TestRegistryDTypesAgree runs every sample in float32 and float64 on the
// same values and compares.
func TestRegistryDTypesAgree(t *testing.T) {
	for _, op := range ops.All() {
		if op.Random() {
			continue
		}
		for i, s := range op.Samples() {
			name := sampleName(op, i, s)
			attrs, err := op.ParseAttrs(s.Attrs)
			if err != nil {
				continue
			}
			a32, e32 := Run(op, attrs, sampleInputs(op, s, attrs, ops.Float32, 3)...)
			a64, e64 := Run(op, attrs, sampleInputs(op, s, attrs, ops.Float64, 3)...)
			if e32 != nil || e64 != nil {
				continue // reported by TestRegistryShapesAndKernels
			}
			for j := range a32 {
				x, y := a32[j].Float64s(), a64[j].Float64s()
				for k := range x {
					if !close(x[k], y[k], 1e-3, 1e-3) {
						t.Errorf("%s: output %d[%d]: float32 gives %v, float64 %v", name, j, k, x[k], y[k])
						break
					}
				}
			}
		}
	}
}

func close(a, b, rtol, atol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= atol+rtol*math.Abs(b)
}

// TestRegistryGradients compares every gradient rule with central
// differences in float64: L = sum_k w_k * out_k for fixed random w.
func TestRegistryGradients(t *testing.T) {
	for _, op := range ops.All() {
		if !op.HasGradRule() || op.Random() {
			continue
		}
		for i, s := range op.Samples() {
			if s.NoGradCheck {
				continue
			}
			name := sampleName(op, i, s)
			attrs, err := op.ParseAttrs(s.Attrs)
			if err != nil {
				continue
			}
			checkGradient(t, name, op, attrs, s)
		}
	}
}

func checkGradient(t *testing.T, name string, op *ops.Op, attrs ops.Attrs, s ops.Sample) {
	t.Helper()
	in := sampleInputs(op, s, attrs, ops.Float64, 5)
	aux := map[int]bool{}
	for _, j := range op.AuxInputs() {
		aux[j] = true
	}
	var vars []*NDArray
	var varIdx []int
	for j, a := range in {
		if _, isInt := s.Ints[j]; isInt || aux[j] || a.dtype != ops.Float64 {
			continue
		}
		a.AttachGrad()
		vars = append(vars, a)
		varIdx = append(varIdx, j)
	}
	if len(vars) == 0 {
		return
	}
	visible := op.NumVisibleOutputs(attrs)
	// Weights for the loss, one array per visible output.
	var weights [][]float64
	loss := func(out []*NDArray) float64 {
		total := 0.0
		for k := 0; k < visible; k++ {
			for j, v := range out[k].Float64s() {
				total += weights[k][j] * v
			}
		}
		return total
	}
	var out []*NDArray
	var runErr error
	TrainMode(func() { out, runErr = Run(op, attrs, in...) })
	if runErr != nil {
		return
	}
	r := rand.New(rand.NewPCG(11, 13))
	heads := out[:visible]
	headGrads := make([]*NDArray, visible)
	for k := 0; k < visible; k++ {
		w := make([]float64, out[k].Size())
		for j := range w {
			w[j] = r.Float64()*2 - 1
		}
		weights = append(weights, w)
		headGrads[k] = Array(w, out[k].shape...)
	}
	// Re-run under Record to build the tape.
	Record(func() { out, runErr = Run(op, attrs, in...) })
	if runErr != nil {
		t.Errorf("%s: %v", name, runErr)
		return
	}
	heads = out[:visible]
	var usable []*NDArray
	var usableGrads []*NDArray
	for k, h := range heads {
		if h.requiresGrad() {
			usable = append(usable, h)
			usableGrads = append(usableGrads, headGrads[k])
		}
	}
	if len(usable) == 0 {
		t.Errorf("%s: outputs were not recorded", name)
		return
	}
	grads, err := Grad(usable, vars, usableGrads, false, false)
	if err != nil {
		t.Errorf("%s: backward failed: %v", name, err)
		return
	}
	const eps = 1e-6
	for v, a := range vars {
		data := a.data.([]float64)
		analytic := grads[v].Float64s()
		for j := range data {
			orig := data[j]
			data[j] = orig + eps
			var plus, minus []*NDArray
			TrainMode(func() { plus, _ = Run(op, attrs, in...) })
			data[j] = orig - eps
			TrainMode(func() { minus, _ = Run(op, attrs, in...) })
			data[j] = orig
			numeric := (loss(plus) - loss(minus)) / (2 * eps)
			if !close(analytic[j], numeric, 1e-4, 1e-5) {
				names := op.InputNames(attrs)
				t.Errorf("%s: d/d%s[%d]: rule gives %.8g, central difference %.8g", name, names[varIdx[v]], j, analytic[j], numeric)
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
