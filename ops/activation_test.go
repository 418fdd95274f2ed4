package ops_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

func TestActivationKnownAnswers(t *testing.T) {
	F := eager.F
	x := eager.Array([]float32{-1, 0, 2})
	cases := []struct {
		act  string
		want []float64
	}{
		{"relu", []float64{0, 0, 2}},
		{"sigmoid", []float64{0.2689414213699951, 0.5, 0.8807970779778823}},
		{"tanh", []float64{-0.7615941559557649, 0, 0.9640275800758169}},
		{"softrelu", []float64{0.31326168751822286, 0.6931471805599453, 2.1269280110429727}},
		{"softsign", []float64{-0.5, 0, 2.0 / 3}},
		{"log_sigmoid", []float64{-1.3132616875182228, -0.6931471805599453, -0.1269280110429725}},
		{"mish", []float64{-0.30340146137410895, 0, 1.9439589595339946}},
	}
	for _, c := range cases {
		checkArray(t, "Activation "+c.act, F.Activation(x, c.act), ops.Shape{3}, c.want, 1e-5)
	}
	// softrelu does not overflow.
	checkArray(t, "softrelu large", F.Activation(eager.Array([]float32{1000, -1000}), "softrelu"), ops.Shape{2}, []float64{1000, 0}, 1e-5)

	y := eager.Array([]float32{-2, 3})
	leaky := []struct {
		name string
		got  ops.Tensor
		want []float64
	}{
		{"leaky", F.LeakyReLU(y, "leaky"), []float64{-0.5, 3}},
		{"leaky slope", F.LeakyReLU(y, "leaky", ops.Attr{"slope", 0.1}), []float64{-0.2, 3}},
		{"elu", F.LeakyReLU(y, "elu", ops.Attr{"slope", 1.0}), []float64{-0.8646647167633873, 3}},
		{"selu", F.LeakyReLU(y, "selu"), []float64{-1.5201664685956948, 3.1521029620664414}},
		{"gelu", F.LeakyReLU(y, "gelu"), []float64{-0.04550026389635842, 2.99595030590511}},
		{"rrelu predicts with the mean slope", F.LeakyReLU(y, "rrelu"), []float64{-2 * (0.125 + 0.334) / 2, 3}},
		// gamma (C,) broadcasts along axis 1.
		{"prelu", F.PReLU(eager.Array([]float32{-1, 2, -4, 1}, 1, 2, 2), eager.Array([]float32{0.1, 0.5})), []float64{-0.1, 2, -2, 1}},
		{"prelu one slope", F.PReLU(eager.Array([]float32{-1, 2, -4, 1}, 2, 2), eager.Array([]float32{0.5})), []float64{-0.5, 2, -2, 1}},
	}
	for _, c := range leaky {
		checkArray(t, "LeakyReLU "+c.name, c.got, c.got.Shape(), c.want, 1e-5)
	}
}

func TestActivationGradients(t *testing.T) {
	F := eager.F
	cases := []struct {
		name string
		x    []float64
		fn   func(ops.Tensor) ops.Tensor
		want []float64
	}{
		{"relu", []float64{-1, 2}, func(x ops.Tensor) ops.Tensor { return F.Activation(x, "relu") }, []float64{0, 1}},
		{"sigmoid", []float64{0}, func(x ops.Tensor) ops.Tensor { return F.Activation(x, "sigmoid") }, []float64{0.25}},
		{"softrelu", []float64{0}, func(x ops.Tensor) ops.Tensor { return F.Activation(x, "softrelu") }, []float64{0.5}},
		{"softsign", []float64{1}, func(x ops.Tensor) ops.Tensor { return F.Activation(x, "softsign") }, []float64{0.25}},
		{"leaky", []float64{-1, 2}, func(x ops.Tensor) ops.Tensor { return F.LeakyReLU(x, "leaky") }, []float64{0.25, 1}},
		{"elu", []float64{-2, 2}, func(x ops.Tensor) ops.Tensor { return F.LeakyReLU(x, "elu", ops.Attr{"slope", 1.0}) },
			[]float64{0.1353352832366127, 1}},
		{"elu of a huge input", []float64{1000}, func(x ops.Tensor) ops.Tensor { return F.LeakyReLU(x, "elu") }, []float64{1}},
		{"gelu at 0", []float64{0}, func(x ops.Tensor) ops.Tensor { return F.LeakyReLU(x, "gelu") }, []float64{0.5}},
	}
	for _, c := range cases {
		got := kaGrad(t, eager.Array(c.x), nil, c.fn)
		checkArray(t, c.name, eager.Array(got), ops.Shape{len(c.want)}, c.want, 1e-5)
	}

	// prelu: dx is 1 or gamma; dgamma sums x over the negative elements of its channel.
	x := eager.Array([]float64{-1, 2, -4, 1, -3, -5, 6, 7}, 2, 2, 2)
	gamma := eager.Array([]float64{0.1, 0.5})
	gamma.AttachGrad()
	got := kaGrad(t, x, nil, func(x ops.Tensor) ops.Tensor { return F.PReLU(x, gamma) })
	checkArray(t, "prelu dx", eager.Array(got), ops.Shape{8}, []float64{0.1, 1, 0.5, 1, 0.1, 0.1, 1, 1}, 1e-5)
	checkArray(t, "prelu dgamma", gamma.Grad(), ops.Shape{2}, []float64{-1 - 3 - 5, -4}, 1e-5)
}

func TestLeakyReLUShapesAndErrors(t *testing.T) {
	F := eager.F
	op := ops.MustLookup("LeakyReLU")
	attrs, err := op.ParseAttrs(map[string]string{"act_type": "prelu"})
	if err != nil {
		t.Fatal(err)
	}
	if names := op.InputNames(attrs); len(names) != 2 || names[1] != "gamma" {
		t.Errorf("prelu inputs %v, want data and gamma", names)
	}
	// An unknown gamma gets one slope per channel of the data.
	_, filled, err := op.InferShape(attrs, []ops.Shape{{2, 3, 4}, {0}})
	if err != nil || !filled[1].Equal(ops.Shape{3}) {
		t.Errorf("gamma inferred as %v (%v), want 3", filled[1], err)
	}
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	wantErr(t, "gamma", panicErr(func() { F.PReLU(x, eager.Zeros(4)) }), "LeakyReLU", "gamma 4", "data 2x3", "3 channels")
	wantErr(t, "act_type", panicErr(func() { F.Activation(x, "swish") }), "Activation", "act_type", "swish")
	wantErr(t, "int data", panicErr(func() { F.Activation(eager.Array([]int32{1}), "relu") }), "Activation", "int32")
	wantErr(t, "rrelu training", panicErr(func() { eager.TrainMode(func() { F.LeakyReLU(x, "rrelu") }) }), "LeakyReLU", "rrelu", "training")
	wantErr(t, "rrelu bounds", panicErr(func() {
		F.LeakyReLU(x, "rrelu", ops.Attr{"lower_bound", 0.5}, ops.Attr{"upper_bound", 0.1})
	}), "LeakyReLU", "lower_bound=0.5")
}

func ExampleF_Activation() {
	x := eager.Array([]float32{-1, 0, 2})
	fmt.Println(eager.F.Activation(x, "relu"))
	fmt.Println(eager.F.LeakyReLU(x, "leaky", ops.Attr{"slope", 0.5}))
	// Output:
	// [0. 0. 2.]
	// <NDArray 3 @cpu(0)>
	// [-0.5  0.   2. ]
	// <NDArray 3 @cpu(0)>
}

// TestActivationIsItsUnaryOps checks that Activation(act_type=t) and the
// op named t (relu, sigmoid, tanh, softsign) are one definition: the same
// values, the same gradient graph, the same doc.
func TestActivationIsItsUnaryOps(t *testing.T) {
	F := eager.F
	act := ops.MustLookup("Activation")
	x := eager.Array([]float32{-2, -0.5, 0, 0.5, 3})
	for _, name := range []string{"relu", "sigmoid", "tanh", "softsign"} {
		op := ops.MustLookup(name)
		if op.Kind() != "activation" {
			t.Errorf("%s: kind %q", name, op.Kind())
		}
		if !strings.Contains(act.Doc(), name+": "+op.Doc()) {
			t.Errorf("Activation's doc %q does not give %s's doc %q", act.Doc(), name, op.Doc())
		}
		want := nd(F.Call(name, []ops.Tensor{x})[0]).Float64s()
		checkArray(t, "Activation "+name, F.Activation(x, name), ops.Shape{5}, want, 0)

		y := F.Call(name, []ops.Tensor{x})[0]
		g := eager.Array([]float32{1, 2, 3, 4, 5})
		a, _ := act.MakeAttrs(ops.Attr{"act_type", name})
		got, err := act.Gradient(F, a, []ops.Tensor{x}, []ops.Tensor{y}, []ops.Tensor{g})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := op.Gradient(F, &ops.NoAttrs{}, []ops.Tensor{x}, []ops.Tensor{y}, []ops.Tensor{g})
		if err != nil {
			t.Fatal(err)
		}
		checkArray(t, "Activation gradient "+name, got[0], ops.Shape{5}, nd(ref[0]).Float64s(), 0)
	}
}
