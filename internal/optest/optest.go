// Package optest builds the inputs of the registry's op samples and
// compares results, for the tests that walk every op in every mode.
package optest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Case is one sample of one op, ready to run.
type Case struct {
	Op     *ops.Op
	Sample ops.Sample
	Attrs  ops.Attrs
	Name   string // "op/index{attrs}"
}

// Cases lists every sample of every registered op whose attributes parse;
// samples that do not parse are returned as errors.
func Cases() ([]Case, []error) {
	var cases []Case
	var errs []error
	for _, op := range ops.All() {
		for i, s := range op.Samples() {
			name := fmt.Sprintf("%s/%d%v", op.Name(), i, s.Attrs)
			attrs, err := op.ParseAttrs(s.Attrs)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: sample attrs do not parse: %w", name, err))
				continue
			}
			cases = append(cases, Case{Op: op, Sample: s, Attrs: attrs, Name: name})
		}
	}
	return cases, errs
}

// Random reports whether the case's results may differ from run to run:
// its op draws random numbers and the sample is not marked Deterministic.
func (c Case) Random() bool { return c.Op.Random() && !c.Sample.Deterministic }

// Inputs makes random inputs for the case in the given float dtype (inputs
// declared with another dtype keep it), from a fixed seed.
func (c Case) Inputs(float ops.DType, seed uint64) []*eager.NDArray {
	s := c.Sample
	r := rand.New(rand.NewPCG(seed, 7))
	low, high := s.Low, s.High
	if low == 0 && high == 0 {
		low, high = -1, 1
	}
	in := make([]*eager.NDArray, len(s.Inputs))
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
		in[i] = eager.Array(ops.FromFloat64s(d, xs), shape...)
	}
	return in
}

// DiffInputs lists the inputs a gradient check perturbs: float64 inputs
// that are neither indices nor auxiliary states.
func (c Case) DiffInputs(in []*eager.NDArray) []int {
	aux := map[int]bool{}
	for _, j := range c.Op.AuxInputs() {
		aux[j] = true
	}
	var idx []int
	for j, a := range in {
		if _, isInt := c.Sample.Ints[j]; isInt || aux[j] || a.DType() != ops.Float64 {
			continue
		}
		idx = append(idx, j)
	}
	return idx
}

// Close reports whether a and b agree within rtol and atol; NaNs agree
// with NaNs and infinities with themselves.
func Close(a, b, rtol, atol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= atol+rtol*math.Abs(b)
}

// FirstDiff returns the first index where got and want disagree, or -1.
func FirstDiff(got, want []float64, rtol, atol float64) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range got {
		if !Close(got[i], want[i], rtol, atol) {
			return i
		}
	}
	return -1
}
