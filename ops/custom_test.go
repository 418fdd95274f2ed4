package ops_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// swishDef is x * sigmoid(beta*x), the user op the tests register.
func swishDef(name string) ops.CustomDef {
	return ops.CustomDef{
		Name: name,
		Doc:  "x * sigmoid(beta * x)",
		Attrs: []ops.AttrInfo{
			{Name: "beta", Type: "float", Default: "1"},
		},
		Shape: func(a ops.CustomAttrs, in []ops.Shape) ([]ops.Shape, error) {
			return []ops.Shape{in[0]}, nil
		},
		DType: func(a ops.CustomAttrs, in []ops.DType) ([]ops.DType, error) {
			if in[0] != ops.Float32 && in[0] != ops.Unknown {
				return nil, ops.Errorf("takes float32, not %v", in[0])
			}
			return []ops.DType{ops.Float32}, nil
		},
		Kernel: func(a ops.CustomAttrs, in, out []ops.Value) error {
			beta := a.Float("beta")
			x, y := in[0].Data.([]float32), out[0].Data.([]float32)
			for i, v := range x {
				y[i] = float32(float64(v) / (1 + math.Exp(-beta*float64(v))))
			}
			return nil
		},
		// d/dx x*s(bx) = s(bx) + b*x*s(bx)*(1-s(bx)) = s + b*(y - y*s)
		Grad: func(F ops.F, a ops.CustomAttrs, in, out, g []ops.Tensor) []ops.Tensor {
			beta := a.Float("beta")
			s := F.Sigmoid(F.MulScalar(in[0], beta))
			y := F.Mul(in[0], s)
			d := F.Add(s, F.MulScalar(F.Sub(y, F.Mul(y, s)), beta))
			return []ops.Tensor{F.Mul(g[0], d)}
		},
	}
}

func swish(x, beta float64) float64 { return x / (1 + math.Exp(-beta*x)) }

func mustRegister(t *testing.T, d ops.CustomDef) *ops.Op {
	t.Helper()
	op, err := ops.RegisterCustom(d)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func TestCustomEager(t *testing.T) {
	op := mustRegister(t, swishDef("test_swish_eager"))
	if !op.Custom() || op.Name() != "test_swish_eager" {
		t.Fatalf("op %v custom=%v", op, op.Custom())
	}
	if got, _ := ops.Lookup("test_swish_eager"); got != op {
		t.Fatal("Lookup does not find the custom op")
	}
	xs := []float32{-2, -0.5, 0, 1, 3}
	x := eager.Array(xs)
	for _, beta := range []float64{1, 2.5} {
		y := eager.F.Call("test_swish_eager", []ops.Tensor{x}, ops.Attr{Name: "beta", Value: beta})[0]
		want := make([]float64, len(xs))
		for i, v := range xs {
			want[i] = swish(float64(v), beta)
		}
		checkArray(t, "swish", y, ops.Shape{5}, want, 1e-6)
	}
	// Attributes are checked by name and type, as for built-in ops.
	wantErr(t, "unknown attr", panicErr(func() {
		eager.F.Call("test_swish_eager", []ops.Tensor{x}, ops.Attr{Name: "alpha", Value: 1})
	}), "test_swish_eager", `unknown attribute "alpha"`, "beta")
	wantErr(t, "bad value", panicErr(func() {
		eager.F.Call("test_swish_eager", []ops.Tensor{x}, ops.Attr{Name: "beta", Value: "big"})
	}), "test_swish_eager", "beta", "not a number")
	// So are dtypes, by the op's own rule.
	wantErr(t, "dtype", panicErr(func() {
		eager.F.Call("test_swish_eager", []ops.Tensor{x.AsType(ops.Float64)})
	}), "test_swish_eager", "takes float32, not float64")
	a, err := op.MakeAttrs(ops.Attr{Name: "beta", Value: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if m := op.FormatAttrs(a); m["beta"] != "0.5" || len(m) != 1 {
		t.Errorf("FormatAttrs = %v", m)
	}
	if m := op.FormatAttrs(op.DefaultAttrs()); len(m) != 0 {
		t.Errorf("FormatAttrs of the defaults = %v, want none", m)
	}
}

func TestCustomGradient(t *testing.T) {
	mustRegister(t, swishDef("test_swish_grad"))
	f := func(x ops.Tensor) ops.Tensor {
		return eager.F.Call("test_swish_grad", []ops.Tensor{x}, ops.Attr{Name: "beta", Value: 1.5})[0]
	}
	xs := []float32{-2, -0.5, 0.25, 1, 3}
	x := eager.Array(xs)
	x.AttachGrad()
	var y *eager.NDArray
	eager.Record(func() { y = eager.F.Sum(f(x)).(*eager.NDArray) })
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	const h = 1e-3
	want := make([]float64, len(xs))
	for i, v := range xs {
		want[i] = (swish(float64(v)+h, 1.5) - swish(float64(v)-h, 1.5)) / (2 * h)
	}
	checkArray(t, "grad", x.Grad(), ops.Shape{5}, want, 1e-4)

	// The gradient rule is made of ops, so it differentiates again.
	x2 := eager.Array([]float32{0.5})
	x2.AttachGrad()
	var dy []*eager.NDArray
	eager.Record(func() {
		y := f(x2).(*eager.NDArray)
		var err error
		dy, err = eager.Grad([]*eager.NDArray{y}, []*eager.NDArray{x2}, nil, true, true)
		if err != nil {
			t.Fatal(err)
		}
	})
	if err := dy[0].Backward(); err != nil {
		t.Fatal(err)
	}
	d2 := (swish(0.5+h, 1.5) - 2*swish(0.5, 1.5) + swish(0.5-h, 1.5)) / (h * h)
	checkArray(t, "second derivative", x2.Grad(), ops.Shape{1}, []float64{d2}, 1e-2)
}

func TestCustomTracedAndJSON(t *testing.T) {
	mustRegister(t, swishDef("test_swish_graph"))
	fn := func(F ops.F, in []ops.Tensor) []ops.Tensor {
		y := F.Call("test_swish_graph", []ops.Tensor{F.Relu(in[0])}, ops.Attr{Name: "beta", Value: 2})[0]
		return []ops.Tensor{F.Add(y, in[0])}
	}
	sym, err := graph.Trace(fn, []ops.Shape{{2, 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := eager.Array([]float32{-1, 0, 1, 2, -3, 0.5}, 2, 3)
	want := fn(eager.F, []ops.Tensor{x})[0]
	run := func(name string, s *graph.Symbol) {
		t.Helper()
		cop, err := graph.Compile(s, graph.SignatureOf([]*eager.NDArray{x}, false), graph.CompileOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := cop.Forward(false, x)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkArray(t, name, out[0], ops.Shape{2, 3}, want.Float64s(), 1e-6)
	}
	run("traced", sym)

	js, err := mxnet.EncodeSymbol(sym)
	if err != nil {
		t.Fatal(err)
	}
	s := string(js)
	for _, part := range []string{`"op": "Custom"`, `"op_type": "test_swish_graph"`, `"beta": "2.0"`} {
		if !strings.Contains(s, part) {
			t.Errorf("symbol file lacks %s:\n%s", part, s)
		}
	}
	if strings.Contains(s, `"op": "test_swish_graph"`) {
		t.Errorf("the custom op is written under its own name:\n%s", s)
	}
	back, err := mxnet.DecodeSymbol(js)
	if err != nil {
		t.Fatal(err)
	}
	run("read back", back)
	js2, err := mxnet.EncodeSymbol(back)
	if err != nil || string(js2) != s {
		t.Errorf("the file read back writes differently (%v):\n%s", err, js2)
	}

	// An op_type nobody registered, and a Custom node without one.
	unknown := strings.Replace(s, `"op_type": "test_swish_graph"`, `"op_type": "test_not_registered"`, 1)
	_, err = mxnet.DecodeSymbol([]byte(unknown))
	if err == nil || !strings.Contains(err.Error(), `custom op "test_not_registered" is not registered: register it with ops.RegisterCustom`) {
		t.Errorf("unregistered op_type: %v", err)
	}
	noType := strings.Replace(s, `"op_type": "test_swish_graph",`, ``, 1)
	noType = strings.Replace(noType, `,
        "op_type": "test_swish_graph"`, ``, 1)
	_, err = mxnet.DecodeSymbol([]byte(noType))
	if err == nil || !strings.Contains(err.Error(), "needs the attribute op_type") {
		t.Errorf("Custom without op_type: %v", err)
	}
	// A built-in op cannot be named through Custom.
	builtin := strings.Replace(s, `"op_type": "test_swish_graph"`, `"op_type": "relu"`, 1)
	if _, err = mxnet.DecodeSymbol([]byte(builtin)); err == nil || !strings.Contains(err.Error(), `names "relu" as its op_type, which is a built-in op, not one registered with ops.RegisterCustom`) {
		t.Errorf("Custom naming a built-in op: %v", err)
	}
}

// A file as MXNet writes a Python custom op loads when the op is registered.
func TestCustomMXNetFile(t *testing.T) {
	mustRegister(t, swishDef("test_swish_mx"))
	js := `{
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "Custom", "name": "custom0", "attrs": {"beta": "3", "op_type": "test_swish_mx"}, "inputs": [[0, 0, 0]]}
  ],
  "arg_nodes": [0],
  "node_row_ptr": [0, 1, 2],
  "heads": [[1, 0, 0]],
  "attrs": {"mxnet_version": ["int", 10901]}
}`
	sym, err := mxnet.DecodeSymbol([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	x := eager.Array([]float32{1, -1})
	cop, err := graph.Compile(sym, graph.SignatureOf([]*eager.NDArray{x}, false), graph.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := cop.Forward(false, x)
	if err != nil {
		t.Fatal(err)
	}
	checkArray(t, "mxnet file", out[0], ops.Shape{2}, []float64{swish(1, 3), swish(-1, 3)}, 1e-6)
}

func TestCustomAttrs(t *testing.T) {
	var got ops.CustomAttrs
	op := mustRegister(t, ops.CustomDef{
		Name: "test_attrs",
		Attrs: []ops.AttrInfo{
			{Name: "n", Type: "int", Required: true},
			{Name: "flag", Type: "bool", Default: "False"},
			{Name: "mode", Type: "string", Default: "a", Enum: []string{"a", "b"}},
			{Name: "axes", Type: "tuple", Default: "(1, 2)"},
		},
		Shape: func(a ops.CustomAttrs, in []ops.Shape) ([]ops.Shape, error) { return []ops.Shape{in[0]}, nil },
		Kernel: func(a ops.CustomAttrs, in, out []ops.Value) error {
			got = a
			ops.CopyData(out[0].Data, in[0].Data)
			return nil
		},
		NoGrad: true,
	})
	wantErr(t, "required", panicErr(func() { eager.F.Call("test_attrs", []ops.Tensor{eager.Ones(2)}) }),
		"test_attrs", "attribute n is required")
	wantErr(t, "enum", panicErr(func() {
		eager.F.Call("test_attrs", []ops.Tensor{eager.Ones(2)}, ops.Attr{Name: "n", Value: 1}, ops.Attr{Name: "mode", Value: "c"})
	}), "test_attrs", "not one of a, b")
	eager.F.Call("test_attrs", []ops.Tensor{eager.Ones(2)}, ops.Attr{Name: "n", Value: 4}, ops.Attr{Name: "mode", Value: "b"})
	if got.Int("n") != 4 || got.Bool("flag") || got.Text("mode") != "b" || len(got.Tuple("axes")) != 2 || got.Get("axes") != "(1, 2)" {
		t.Errorf("attrs read back: %v", got.Map())
	}
	if m := got.Map(); m["n"] != "4" || m["flag"] != "False" || len(m) != 4 {
		t.Errorf("Map = %v", m)
	}
	wantErr(t, "wrong type", panicErr(func() { got.Float("n") }), "test_attrs", "attribute n is int, not float")
	wantErr(t, "no such", panicErr(func() { got.Int("m") }), "test_attrs", `no attribute "m"`, "n, flag, mode, axes")
	if !op.Differentiable() || op.HasGradRule() {
		t.Error("a NoGrad custom op is differentiable with a zero gradient")
	}
}

func TestRegisterCustomErrors(t *testing.T) {
	good := swishDef("test_swish_errors")
	for _, c := range []struct {
		name string
		edit func(d *ops.CustomDef)
		want string
	}{
		{"no name", func(d *ops.CustomDef) { d.Name = "" }, "needs a Name"},
		{"Custom", func(d *ops.CustomDef) { d.Name = "Custom" }, `"Custom" cannot name an op`},
		{"built-in", func(d *ops.CustomDef) { d.Name = "relu" }, "relu: a built-in op has this name"},
		{"alias of a built-in", func(d *ops.CustomDef) { d.Name = "_plus" }, "a built-in op has this name"},
		{"no shape", func(d *ops.CustomDef) { d.Shape = nil }, "a Shape rule is required"},
		{"no kernel", func(d *ops.CustomDef) { d.Kernel = nil }, "a Kernel is required"},
		{"outputs", func(d *ops.CustomDef) { d.Outputs = -1 }, "Outputs is -1"},
		{"attr type", func(d *ops.CustomDef) { d.Attrs[0].Type = "double" }, `attribute beta has type "double"`},
		{"attr default", func(d *ops.CustomDef) { d.Attrs[0].Default = "one" }, `bad default: attribute beta="one" is not a number`},
		{"attr twice", func(d *ops.CustomDef) { d.Attrs = append(d.Attrs, d.Attrs[0]) }, "attribute beta is declared twice"},
		{"op_type", func(d *ops.CustomDef) { d.Attrs[0].Name = "op_type" }, "op_type is reserved"},
		{"attr name", func(d *ops.CustomDef) { d.Attrs[0].Name = "" }, "attribute 0 has no Name"},
	} {
		d := good
		d.Attrs = append([]ops.AttrInfo(nil), good.Attrs...)
		c.edit(&d)
		op, err := ops.RegisterCustom(d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, %v; want an error with %q", c.name, op, err, c.want)
		}
	}
	if _, ok := ops.Lookup("test_swish_errors"); ok {
		t.Error("a refused definition was registered")
	}
	if ops.MustLookup("relu").Custom() {
		t.Error("relu is not a custom op")
	}
}

// Registering a custom op's name again replaces it, as a REPL cell run
// twice would.
func TestRegisterCustomAgain(t *testing.T) {
	first := mustRegister(t, swishDef("test_swish_again"))
	n := len(ops.All())
	d := swishDef("test_swish_again")
	d.Attrs[0].Default = "2"
	second := mustRegister(t, d)
	if got, _ := ops.Lookup("test_swish_again"); got != second || got == first {
		t.Error("the second definition does not replace the first")
	}
	if len(ops.All()) != n {
		t.Errorf("ops.All() has %d ops after registering again, %d before", len(ops.All()), n)
	}
	y := eager.F.Call("test_swish_again", []ops.Tensor{eager.Ones(1)})[0]
	checkArray(t, "new default", y, ops.Shape{1}, []float64{swish(1, 2)}, 1e-6)
}

// An op with two inputs and two outputs, traced and run from a graph.
func TestCustomTwoOutputs(t *testing.T) {
	mustRegister(t, ops.CustomDef{
		Name:    "test_sum_diff",
		Inputs:  []string{"lhs", "rhs"},
		Outputs: 2,
		Shape: func(a ops.CustomAttrs, in []ops.Shape) ([]ops.Shape, error) {
			if !in[0].Equal(in[1]) {
				return nil, ops.Errorf("shapes %v and %v differ", in[0], in[1])
			}
			return []ops.Shape{in[0], in[0]}, nil
		},
		Kernel: func(a ops.CustomAttrs, in, out []ops.Value) error {
			x, y := ops.ToFloat64s(in[0].Data), ops.ToFloat64s(in[1].Data)
			s, d := make([]float64, len(x)), make([]float64, len(x))
			for i := range x {
				s[i], d[i] = x[i]+y[i], x[i]-y[i]
			}
			ops.CopyData(out[0].Data, ops.FromFloat64s(out[0].DType, s))
			ops.CopyData(out[1].Data, ops.FromFloat64s(out[1].DType, d))
			return nil
		},
	})
	a, b := eager.Array([]float32{1, 2}), eager.Array([]float32{3, 5})
	out := eager.F.Call("test_sum_diff", []ops.Tensor{a, b})
	if len(out) != 2 {
		t.Fatalf("%d outputs, want 2", len(out))
	}
	checkArray(t, "sum", out[0], ops.Shape{2}, []float64{4, 7}, 0)
	checkArray(t, "diff", out[1], ops.Shape{2}, []float64{-2, -3}, 0)
	wantErr(t, "shapes", panicErr(func() { eager.F.Call("test_sum_diff", []ops.Tensor{a, eager.Ones(3)}) }),
		"test_sum_diff", "shapes 2 and 3 differ", "lhs 2", "rhs 3")
	wantErr(t, "arity", panicErr(func() { eager.F.Call("test_sum_diff", []ops.Tensor{a}) }),
		"test_sum_diff", "takes 2 inputs (lhs, rhs), got 1")
	sym, err := graph.Trace(func(F ops.F, in []ops.Tensor) []ops.Tensor {
		return F.Call("test_sum_diff", in)
	}, []ops.Shape{{2}, {2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	js, err := mxnet.EncodeSymbol(sym)
	if err != nil {
		t.Fatal(err)
	}
	back, err := mxnet.DecodeSymbol(js)
	if err != nil {
		t.Fatal(err)
	}
	cop, err := graph.Compile(back, graph.SignatureOf([]*eager.NDArray{a, b}, false), graph.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cop.Forward(false, a, b)
	if err != nil || len(res) != 2 {
		t.Fatalf("%d outputs, %v", len(res), err)
	}
	checkArray(t, "graph diff", res[1], ops.Shape{2}, []float64{-2, -3}, 0)
	// Without a gradient rule, Backward says so.
	x := eager.Array([]float32{1, 2})
	x.AttachGrad()
	var y *eager.NDArray
	eager.Record(func() { y = eager.F.Sum(eager.F.Call("test_sum_diff", []ops.Tensor{x, b})[0]).(*eager.NDArray) })
	wantErr(t, "no grad", y.Backward(), "test_sum_diff", "no gradient rule")
}

// A dtype rule that returns the wrong number of dtypes is an error that
// names the op, not a crash.
func TestCustomDTypeRuleCountChecked(t *testing.T) {
	d := swishDef("test_swish_dtypes")
	d.DType = func(a ops.CustomAttrs, in []ops.DType) ([]ops.DType, error) { return nil, nil }
	mustRegister(t, d)
	wantErr(t, "dtype count", panicErr(func() { eager.F.Call("test_swish_dtypes", []ops.Tensor{eager.Ones(2)}) }),
		"test_swish_dtypes", "dtype rule returned 0 dtypes for 1 outputs")
}
