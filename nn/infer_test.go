package nn_test

import (
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

func TestInferShape(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input ops.Tensor
	}{
		{"from a Symbol", graph.Var("data", ops.Shape{1, 1, 28, 28}, ops.Float32)},
		{"from an NDArray", eager.Zeros(1, 1, 28, 28)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net := NewNet()
			if err := net.InferShape(tc.input); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				p    *nn.Parameter
				want ops.Shape
			}{{net.Conv1.Weight, ops.Shape{6, 1, 5, 5}}, {net.Fc1.Weight, ops.Shape{120, 256}}, {net.Fc3Weight, ops.Shape{10, 84}}} {
				if got := c.p.Shape(); !got.Equal(c.want) {
					t.Errorf("%s: %v, want %v", c.p.Name(), got, c.want)
				}
				if c.p.Initialized() {
					t.Errorf("%s was initialised without Initialize", c.p.Name())
				}
			}
			// The traced shapes make a later Initialize complete.
			net.Initialize()
			if !net.Fc1.Weight.Initialized() {
				t.Error("Initialize after InferShape left fc1 without values")
			}
		})
	}
	err := NewNet().InferShape(graph.Var("data", ops.Shape{1, 1, 3, 3}, ops.Float32))
	if err == nil || !strings.Contains(err.Error(), "infer shape") {
		t.Errorf("an input too small for the kernels: %v", err)
	}
}

func TestInferType(t *testing.T) {
	d := nn.NewDense(3)
	if err := d.InferType(graph.Var("data", ops.Shape{2, 4}, ops.Float64)); err != nil {
		t.Fatal(err)
	}
	if d.Weight.DType() != ops.Float64 || d.Bias.DType() != ops.Float64 {
		t.Errorf("dtypes %v %v, want float64", d.Weight.DType(), d.Bias.DType())
	}
	if !d.Weight.Shape().Equal(ops.Shape{3, 4}) {
		t.Errorf("shape %v", d.Weight.Shape())
	}
	d.Initialize()
	y := d.Forward(eager.Ones(2, 4).AsType(ops.Float64))
	if y.DType() != ops.Float64 {
		t.Errorf("output %v", y.DType())
	}
	// Parameters with values keep their dtypes.
	if err := d.InferType(graph.Var("data", ops.Shape{2, 4}, ops.Float32)); err == nil && d.Weight.DType() != ops.Float64 {
		t.Errorf("an initialised weight changed dtype to %v", d.Weight.DType())
	}
}

// A nil input is an error naming it, not a crash.
func TestInferNilInput(t *testing.T) {
	d := nn.NewDense(3)
	for _, err := range []error{d.InferShape(nil), d.InferType(nil), d.InferShape((*eager.NDArray)(nil))} {
		if err == nil || !strings.Contains(err.Error(), "input 0 is nil") {
			t.Errorf("got %v, want an error saying input 0 is nil", err)
		}
	}
}
