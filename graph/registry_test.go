package graph_test

import (
	"fmt"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// traceCase records the case's op on one variable per input; known says
// whether the variables get the inputs' full shapes or an unknown first dim.
func traceCase(c optest.Case, in []*eager.NDArray, known bool) (*graph.Symbol, map[string]*eager.NDArray, error) {
	tr := graph.NewTracer()
	vars := make([]ops.Tensor, len(in))
	bind := map[string]*eager.NDArray{}
	for i, a := range in {
		name := fmt.Sprintf("in%d", i)
		shape := a.Shape()
		if !known && i == 0 && len(shape) > 0 {
			shape[0] = 0
		}
		vars[i] = graph.Var(name, shape, a.DType())
		bind[name] = a
	}
	outs, err := tr.F().Apply(c.Op, c.Attrs, vars...)
	if err != nil {
		return nil, nil, err
	}
	syms := make([]*graph.Symbol, len(outs))
	for i, o := range outs {
		syms[i] = o.(*graph.Symbol)
	}
	return graph.Group(syms...), bind, nil
}

// Every op computed eagerly and through a traced graph gives the same
// values; traced shapes and dtypes equal what the kernels produce.
func TestRegistryEagerEqualsGraph(t *testing.T) {
	cs, errs := optest.Cases()
	for _, err := range errs {
		t.Error(err)
	}
	for _, c := range cs {
		if c.Random() {
			continue
		}
		for _, dt := range []ops.DType{ops.Float64, ops.Float32} {
			in := c.Inputs(dt, 2)
			state := keepState(c, in)
			want, err := eager.Run(c.Op, c.Attrs, in...)
			if err != nil {
				t.Errorf("%s: eager: %v", c.Name, err)
				continue
			}
			state.restore()
			for _, known := range []bool{true, false} {
				sym, bind, err := traceCase(c, in, known)
				if err != nil {
					if known {
						t.Errorf("%s %v: trace: %v", c.Name, dt, err)
					}
					continue // an unknown batch dim may be refused by shape rules that need it
				}
				if known {
					for i, e := range sym.Entries() {
						if !e.Shape().Equal(want[i].Shape()) || e.DType() != want[i].DType() {
							t.Errorf("%s %v: traced output %d is %v, the kernel gives %v", c.Name, dt, i,
								graph.ShapeString(e.Shape(), e.DType()), graph.ShapeString(want[i].Shape(), want[i].DType()))
						}
					}
				}
				got, err := sym.Eval(bind)
				state.restore()
				if err != nil {
					t.Errorf("%s %v known=%v: eval: %v", c.Name, dt, known, err)
					continue
				}
				for i := range want {
					if k := optest.FirstDiff(got[i].Float64s(), want[i].Float64s(), 0, 0); k >= 0 {
						t.Errorf("%s %v known=%v: output %d differs at %d", c.Name, dt, known, i, k)
					}
				}
				if known {
					checkPlanned(t, c.Name+" "+dt.String(), sym, bind, want, state.restore)
				}
			}
		}
	}
}

// checkPlanned runs the graph through an Executable — compiled, optimised
// (or not), memory-planned, with and without static buffers (called twice,
// so reused buffers are exercised) — and compares with the eager outputs.
func checkPlanned(t *testing.T, name string, sym *graph.Symbol, bind map[string]*eager.NDArray, want []*eager.NDArray, restore func()) {
	t.Helper()
	none := graph.PassOptions{}
	all := graph.DefaultPassOptions()
	for _, opts := range []graph.CompileOptions{
		{Passes: &none}, {Passes: &all}, {Passes: &all, StaticAlloc: true},
	} {
		cop, args := compileFor(t, sym, bind, false, opts)
		for call := 0; call < 2; call++ {
			got, err := cop.Forward(false, args...)
			restore()
			if err != nil {
				t.Errorf("%s %+v: %v", name, opts, err)
				return
			}
			for i := range want {
				if k := optest.FirstDiff(got[i].Float64s(), want[i].Float64s(), 0, 0); k >= 0 {
					t.Errorf("%s passes=%v static=%v call %d: output %d differs at %d", name, *opts.Passes != none, opts.StaticAlloc, call, i, k)
				}
			}
		}
	}
}

// opState holds the values of the inputs an op updates in place (its Aux
// inputs: BatchNorm's moving statistics, an optimizer's states), so that
// every run of a sample can start from the same state.
type opState struct {
	arrays []*eager.NDArray
	values [][]float64
}

// keepState records the values of c's in-place inputs among in.
func keepState(c optest.Case, in []*eager.NDArray) *opState {
	s := &opState{}
	for _, i := range c.Op.AuxInputs() {
		s.arrays = append(s.arrays, in[i])
		s.values = append(s.values, in[i].Float64s())
	}
	return s
}

// restore puts the recorded values back.
func (s *opState) restore() {
	for i, a := range s.arrays {
		ops.CopyData(a.Data(), ops.FromFloat64s(a.DType(), s.values[i]))
	}
}
