package mxnet_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// cnn traces conv -> batch norm -> relu -> pool -> flatten -> dense ->
// softmax on data of unknown batch size.
func cnn() *graph.Symbol {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("data", ops.Shape{0, 3, 8, 8}, ops.Float32)
	w := graph.Var("conv0_weight", ops.Shape{4, 0, 3, 3}, ops.Unknown)
	b := graph.Var("conv0_bias", nil, ops.Unknown)
	gamma := graph.Var("bn0_gamma", nil, ops.Unknown)
	beta := graph.Var("bn0_beta", nil, ops.Unknown)
	mean := graph.Var("bn0_running_mean", nil, ops.Unknown)
	vr := graph.Var("bn0_running_var", nil, ops.Unknown)
	fw := graph.Var("dense0_weight", ops.Shape{5, 0}, ops.Unknown)
	fb := graph.Var("dense0_bias", nil, ops.Unknown)
	var y ops.Tensor
	tr.Scope("net0_", func() {
		tr.NameNext("conv0_fwd")
		y = F.Convolution(x, w, b, []int{3, 3}, 4, ops.Attr{Name: "pad", Value: []int{1, 1}})
		tr.NameNext("bn0_fwd")
		y = F.BatchNorm(y, gamma, beta, mean, vr, ops.Attr{Name: "fix_gamma", Value: false}, ops.Attr{Name: "eps", Value: 1e-5})
		y = F.Relu(y)
		tr.NameNext("pool0_fwd")
		y = F.Pooling(y, []int{2, 2}, "max", ops.Attr{Name: "stride", Value: []int{2, 2}})
		y = F.Flatten(y)
		tr.NameNext("dense0_fwd")
		y = F.FullyConnected(y, fw, fb, 5)
		y = F.Softmax(y)
	})
	return y.(*graph.Symbol)
}

// bindRandom binds every input of s to normal random values of the
// shapes inference gives for data of the given shape; variances are made
// positive.
func bindRandom(t *testing.T, s *graph.Symbol, data ops.Shape) map[string]*eager.NDArray {
	t.Helper()
	args, _, aux, err := s.InferShape(map[string]ops.Shape{"data": data})
	if err != nil {
		t.Fatal(err)
	}
	eager.Seed(7)
	bind := map[string]*eager.NDArray{}
	for i, name := range s.ListArguments() {
		bind[name] = eager.RandomNormal(args[i]...)
	}
	for i, name := range s.ListAuxiliaryStates() {
		a := eager.RandomNormal(aux[i]...)
		if strings.HasSuffix(name, "_var") {
			a = eager.Ones(aux[i]...)
		}
		bind[name] = a
	}
	return bind
}

// mlp is two dense layers on data of unknown batch size.
func mlp() *graph.Symbol {
	v := func(name string, shape ops.Shape) ops.Tensor { return graph.Var(name, shape, ops.Unknown) }
	x := graph.Var("data", ops.Shape{0, 784}, ops.Float32)
	h := graph.F.Relu(graph.F.FullyConnected(x, v("fc1_weight", ops.Shape{128, 0}), v("fc1_bias", nil), 128))
	return graph.F.FullyConnected(h, v("fc2_weight", ops.Shape{10, 0}), v("fc2_bias", nil), 10).(*graph.Symbol)
}

func TestSymbolJSONRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name string
		sym  *graph.Symbol
		data ops.Shape
		aux  string
	}{
		{"mlp", mlp(), ops.Shape{3, 784}, ""},
		{"cnn", cnn(), ops.Shape{2, 3, 8, 8}, "bn0_running_mean bn0_running_var"},
	} {
		t.Run(c.name, func(t *testing.T) {
			first, err := mxnet.EncodeSymbol(c.sym)
			if err != nil {
				t.Fatal(err)
			}
			again, err := mxnet.EncodeSymbol(c.sym)
			if err != nil || !bytes.Equal(first, again) {
				t.Fatalf("writing twice differs (%v)", err)
			}
			back, err := mxnet.DecodeSymbol(first)
			if err != nil {
				t.Fatalf("reading back: %v\n%s", err, first)
			}
			second, err := mxnet.EncodeSymbol(back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first, second) {
				t.Fatalf("round trip changed the file:\n%s\nthen:\n%s", first, second)
			}
			for _, l := range []struct {
				what      string
				got, want []string
			}{
				{"arguments", back.ListArguments(), c.sym.ListArguments()},
				{"aux states", back.ListAuxiliaryStates(), c.sym.ListAuxiliaryStates()},
				{"outputs", back.ListOutputs(), c.sym.ListOutputs()},
				{"internals", back.GetInternals().ListOutputs(), c.sym.GetInternals().ListOutputs()},
			} {
				if strings.Join(l.got, " ") != strings.Join(l.want, " ") {
					t.Errorf("%s: %v, want %v", l.what, l.got, l.want)
				}
			}
			if got := strings.Join(back.ListAuxiliaryStates(), " "); got != c.aux {
				t.Errorf("aux states %q, want %q", got, c.aux)
			}
			if back.Graph().String() != c.sym.Graph().String() {
				t.Errorf("listing differs:\n%s\nwant:\n%s", back.Graph(), c.sym.Graph())
			}
			bind := bindRandom(t, c.sym, c.data)
			want, err := c.sym.Eval(bind)
			if err != nil {
				t.Fatal(err)
			}
			got, err := back.Eval(bind)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d outputs, want %d", len(got), len(want))
			}
			for i := range want {
				g, w := got[i].Float64s(), want[i].Float64s()
				if !got[i].Shape().Equal(want[i].Shape()) || len(g) != len(w) {
					t.Fatalf("output %d: shape %v, want %v", i, got[i].Shape(), want[i].Shape())
				}
				for j := range w {
					if g[j] != w[j] || math.IsNaN(w[j]) {
						t.Fatalf("output %d[%d] = %v, want %v", i, j, g[j], w[j])
					}
				}
			}
		})
	}
}

// tinyGraph is data -> FullyConnected -> Activation(relu).
func tinyGraph() *graph.Symbol {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("data", ops.Shape{0, 4}, ops.Float32)
	w := graph.Var("dense0_weight", ops.Shape{3, 0}, ops.Unknown)
	b := graph.Var("dense0_bias", nil, ops.Unknown)
	tr.NameNext("dense0_fwd")
	h := F.FullyConnected(x, w, b, 3)
	tr.NameNext("dense0_relu_fwd")
	return F.Activation(h, "relu").(*graph.Symbol)
}

const tinyGolden = `{
  "nodes": [
    {
      "op": "null",
      "name": "data",
      "attrs": {
        "__dtype__": "0",
        "__shape__": "(0, 4)"
      },
      "inputs": []
    },
    {
      "op": "null",
      "name": "dense0_weight",
      "attrs": {
        "__dtype__": "0",
        "__shape__": "(3, 4)"
      },
      "inputs": []
    },
    {
      "op": "null",
      "name": "dense0_bias",
      "attrs": {
        "__dtype__": "0",
        "__shape__": "(3,)"
      },
      "inputs": []
    },
    {
      "op": "FullyConnected",
      "name": "dense0_fwd",
      "attrs": {
        "num_hidden": "3"
      },
      "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]
    },
    {
      "op": "Activation",
      "name": "dense0_relu_fwd",
      "attrs": {
        "act_type": "relu"
      },
      "inputs": [[3, 0, 0]]
    }
  ],
  "arg_nodes": [0, 1, 2],
  "node_row_ptr": [0, 1, 2, 3, 4, 5],
  "heads": [[4, 0, 0]],
  "attrs": {"mxnet_version": ["int", 10901]}
}
`

func TestSymbolJSONGolden(t *testing.T) {
	got, err := mxnet.EncodeSymbol(tinyGraph())
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != tinyGolden {
		t.Errorf("got:\n%s\nwant:\n%s", got, tinyGolden)
	}
	s, err := mxnet.DecodeSymbol([]byte(tinyGolden))
	if err != nil {
		t.Fatal(err)
	}
	if s.String() != "<Symbol dense0_relu_fwd>" || s.Shape().String() != "?x3" {
		t.Errorf("loaded %v of shape %v", s, s.Shape())
	}
}

// mxnetFile is written the way MXNet 1.x writes files, with a pre-nnvm
// node ("param", two-element inputs, backward_source_id) in the middle,
// attributes hybridgo's ops do not know, and Gluon's variable annotations.
const mxnetFile = `{
  "nodes": [
    {
      "op": "null", 
      "name": "data", 
      "inputs": []
    }, 
    {
      "op": "null", 
      "name": "conv0_weight", 
      "attrs": {
        "__dtype__": "0", 
        "__init__": "[\"xavier\", {\"magnitude\": 2.24}]", 
        "__lr_mult__": "1.0", 
        "__shape__": "(4, 0, 3, 3)", 
        "__storage_type__": "0", 
        "__wd_mult__": "1.0"
      }, 
      "inputs": []
    }, 
    {
      "op": "null", 
      "name": "conv0_bias", 
      "attrs": {
        "__init__": "zeros", 
        "__shape__": "(4,)"
      }, 
      "inputs": []
    }, 
    {
      "op": "Convolution", 
      "name": "conv0_fwd", 
      "param": {
        "kernel": "(3, 3)", 
        "no_bias": "False", 
        "num_filter": "4", 
        "pad": "(1, 1)"
      }, 
      "attr": {"ctx_group": "stage1"}, 
      "inputs": [[0, 0], [1, 0], [2, 0]], 
      "backward_source_id": -1
    }, 
    {
      "op": "null", 
      "name": "bn0_gamma", 
      "attrs": {"__init__": "ones", "__shape__": "(4,)"}, 
      "inputs": []
    }, 
    {
      "op": "null", 
      "name": "bn0_beta", 
      "attrs": {"__init__": "zeros", "__shape__": "(4,)"}, 
      "inputs": []
    }, 
    {
      "op": "null", 
      "name": "bn0_running_mean", 
      "attrs": {"__init__": "zeros", "__shape__": "(4,)"}, 
      "inputs": []
    }, 
    {
      "op": "null", 
      "name": "bn0_running_var", 
      "attrs": {"__init__": "ones", "__shape__": "(4,)"}, 
      "inputs": []
    }, 
    {
      "op": "BatchNorm", 
      "name": "bn0_fwd", 
      "attrs": {
        "axis": "1", 
        "eps": "1e-05", 
        "fix_gamma": "False", 
        "momentum": "0.9", 
        "use_global_stats": "False", 
        "__profiler_scope__": "net0_:"
      }, 
      "inputs": [[3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 1], [7, 0, 1]]
    }, 
    {
      "op": "Activation", 
      "name": "relu0_fwd", 
      "attrs": {"act_type": "relu"}, 
      "inputs": [[8, 0, 0]]
    }, 
    {
      "op": "Flatten", 
      "name": "flatten0", 
      "inputs": [[9, 0, 0]]
    }, 
    {
      "op": "null", 
      "name": "dense0_weight", 
      "attrs": {"__shape__": "(5, 0)", "lr_mult": "2"}, 
      "inputs": []
    }, 
    {
      "op": "FullyConnected", 
      "name": "dense0_fwd", 
      "attrs": {"no_bias": "True", "num_hidden": "5"}, 
      "inputs": [[10, 0, 0], [11, 0, 0]]
    }, 
    {
      "op": "softmax", 
      "name": "softmax0", 
      "attrs": {"axis": "-1"}, 
      "inputs": [[12, 0, 0]]
    }
  ], 
  "arg_nodes": [0, 1, 2, 4, 5, 6, 7, 11], 
  "node_row_ptr": [0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16], 
  "heads": [[13, 0, 0]], 
  "attrs": {"mxnet_version": ["int", 10901]}
}`

func TestSymbolJSONReadsMXNetFiles(t *testing.T) {
	s, err := mxnet.DecodeSymbol([]byte(mxnetFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.ListArguments(), " "); got != "data conv0_weight conv0_bias bn0_gamma bn0_beta dense0_weight" {
		t.Errorf("arguments: %s", got)
	}
	if got := strings.Join(s.ListAuxiliaryStates(), " "); got != "bn0_running_mean bn0_running_var" {
		t.Errorf("aux states: %s", got)
	}
	if got := strings.Join(s.ListOutputs(), " "); got != "softmax0_output" {
		t.Errorf("outputs: %s", got)
	}
	// The data has no shape, so the weights' unknown dims stay unknown
	// until one is given.
	args, outs, _, err := s.InferShape(map[string]ops.Shape{"data": {2, 3, 6, 6}})
	if err != nil {
		t.Fatal(err)
	}
	if !args[1].Equal(ops.Shape{4, 3, 3, 3}) || !args[5].Equal(ops.Shape{5, 144}) || !outs[0].Equal(ops.Shape{2, 5}) {
		t.Errorf("inferred conv0_weight %v, dense0_weight %v, output %v", args[1], args[5], outs[0])
	}

	out, err := mxnet.EncodeSymbol(s)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{
		`"__init__": "[\"xavier\", {\"magnitude\": 2.24}]"`,
		`"__lr_mult__": "1.0"`,
		`"__storage_type__": "0"`,
		`"__wd_mult__": "1.0"`,
		`"__shape__": "(4, 0, 3, 3)"`,
		`"ctx_group": "stage1"`,
		`"__profiler_scope__": "net0_:"`,
		`"lr_mult": "2"`,
		`"inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]`,
		`"node_row_ptr": [0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16]`,
		`"arg_nodes": [0, 1, 2, 4, 5, 6, 7, 11]`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("written file lacks %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, "param") || strings.Contains(text, "backward_source_id") {
		t.Errorf("legacy keys written back:\n%s", text)
	}
	again, err := mxnet.DecodeSymbol(out)
	if err != nil {
		t.Fatal(err)
	}
	out2, err := mxnet.EncodeSymbol(again)
	if err != nil || !bytes.Equal(out, out2) {
		t.Errorf("not stable (%v):\n%s\nthen:\n%s", err, out, out2)
	}

	// Bound to values, the loaded graph runs.
	bind := bindRandom(t, s, ops.Shape{2, 3, 6, 6})
	res, err := s.Eval(bind)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, v := range res[0].Float64s()[:5] {
		sum += v
	}
	if math.Abs(sum-1) > 1e-5 {
		t.Errorf("softmax row sums to %v", sum)
	}
}

func TestSymbolJSONErrors(t *testing.T) {
	// node builds a one-node-per-line file from node texts and heads.
	file := func(heads string, nodes ...string) string {
		return `{"nodes": [` + strings.Join(nodes, ",\n") + `], "heads": ` + heads + `}`
	}
	data := `{"op": "null", "name": "data", "inputs": []}`
	w := `{"op": "null", "name": "w", "inputs": []}`
	fc := func(attrs, inputs string) string {
		return `{"op": "FullyConnected", "name": "fc0", "attrs": ` + attrs + `, "inputs": ` + inputs + `}`
	}
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"unknown op", file(`[[1, 0, 0]]`, data, `{"op": "Foo", "name": "foo0", "inputs": [[0, 0, 0]]}`),
			[]string{`node 1 "foo0": unknown op "Foo" (hybridgo ops lists the supported ones)`}},
		{"forward input", file(`[[1, 0, 0]]`, data, `{"op": "relu", "name": "relu0", "inputs": [[2, 0, 0]]}`, w),
			[]string{`node 1 "relu0": input 0`, "refers to node 2, which is not an earlier node"}},
		{"self input", file(`[[1, 0, 0]]`, data, `{"op": "relu", "name": "relu0", "inputs": [[1, 0, 0]]}`),
			[]string{`node 1 "relu0"`, "refers to node 1"}},
		{"output index", file(`[[1, 0, 0]]`, data, `{"op": "relu", "name": "relu0", "inputs": [[0, 1, 0]]}`),
			[]string{`node 1 "relu0": input 0`, `refers to output 1 of node 0 "data", which has 1 outputs`}},
		{"bad entry", file(`[[1, 0, 0]]`, data, `{"op": "relu", "name": "relu0", "inputs": [[0]]}`),
			[]string{`node 1 "relu0": input 0`, "[node, output]"}},
		{"head out of range", file(`[[3, 0, 0]]`, data), []string{"head 0", "refers to node 3"}},
		{"no heads", file(`[]`, data), []string{"no \"heads\""}},
		{"input count", file(`[[2, 0, 0]]`, data, w, fc(`{"num_hidden": "3"}`, `[[0, 0, 0], [1, 0, 0]]`)),
			[]string{`node 2 "fc0": FullyConnected takes 3 inputs (data, weight, bias), got 2`}},
		{"bad attribute", file(`[[2, 0, 0]]`, data, w, fc(`{"num_hidden": "three", "no_bias": "True"}`, `[[0, 0, 0], [1, 0, 0]]`)),
			[]string{`node 2 "fc0"`, `num_hidden="three" is not an int`}},
		{"missing attribute", file(`[[2, 0, 0]]`, data, w, fc(`{"no_bias": "True"}`, `[[0, 0, 0], [1, 0, 0]]`)),
			[]string{`node 2 "fc0"`, `attribute num_hidden is required`}},
		{"attribute not a string", file(`[[2, 0, 0]]`, data, w, fc(`{"num_hidden": 3, "no_bias": "True"}`, `[[0, 0, 0], [1, 0, 0]]`)),
			[]string{`node 2 "fc0"`}},
		{"num_args", file(`[[1, 0, 0]]`, data, `{"op": "Concat", "name": "cat0", "attrs": {"num_args": "1e9"}, "inputs": [[0, 0, 0]]}`),
			[]string{`node 1 "cat0": Concat takes 1000000000 inputs`}},
		{"duplicate variable", file(`[[2, 0, 0]]`, data, data, `{"op": "elemwise_add", "name": "add0", "inputs": [[0, 0, 0], [1, 0, 0]]}`),
			[]string{`node 1 "data": duplicate variable name (node 0 has it too)`}},
		{"variable with inputs", file(`[[1, 0, 0]]`, data, `{"op": "null", "name": "v", "inputs": [[0, 0, 0]]}`),
			[]string{`node 1 "v": a variable (op null) has 1 inputs`}},
		{"bad shape", file(`[[0, 0, 0]]`, `{"op": "null", "name": "data", "attrs": {"__shape__": "(2, x)"}, "inputs": []}`),
			[]string{`node 0 "data": __shape__="(2, x)"`}},
		{"bad dtype", file(`[[0, 0, 0]]`, `{"op": "null", "name": "data", "attrs": {"__dtype__": "99"}, "inputs": []}`),
			[]string{`node 0 "data": __dtype__="99"`}},
		{"no name", file(`[[0, 0, 0]]`, `{"op": "null", "inputs": []}`), []string{"node 0 has no name"}},
		{"shape contradiction", file(`[[2, 0, 0]]`,
			`{"op": "null", "name": "a", "attrs": {"__shape__": "(2, 3)"}, "inputs": []}`,
			`{"op": "null", "name": "b", "attrs": {"__shape__": "(4, 5)"}, "inputs": []}`,
			`{"op": "elemwise_add", "name": "add0", "inputs": [[0, 0, 0], [1, 0, 0]]}`),
			[]string{`node 2 "add0"`, "elemwise_add"}},
		{"dtype contradiction", file(`[[2, 0, 0]]`,
			`{"op": "null", "name": "a", "attrs": {"__dtype__": "0"}, "inputs": []}`,
			`{"op": "null", "name": "b", "attrs": {"__dtype__": "6"}, "inputs": []}`,
			`{"op": "elemwise_add", "name": "add0", "inputs": [[0, 0, 0], [1, 0, 0]]}`),
			[]string{`node 2 "add0"`, "int64", "float32"}},
		{"truncated", mxnetFile[:len(mxnetFile)/2], []string{"symbol json: unexpected end of JSON input"}},
		{"not json", "nodes", []string{"symbol json: invalid character"}},
		{"no nodes", `{"heads": [[0, 0, 0]]}`, []string{`no "nodes"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := mxnet.DecodeSymbol([]byte(c.text))
			if err == nil {
				t.Fatalf("loaded %v", s)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestSymbolJSONRefusesConstants(t *testing.T) {
	sym, err := graph.Trace(func(F ops.F, in []ops.Tensor) []ops.Tensor {
		return []ops.Tensor{F.Add(in[0], eager.Array([]float32{1, 2, 3}))}
	}, []ops.Shape{{2, 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = mxnet.EncodeSymbol(sym)
	if err == nil || !strings.Contains(err.Error(), `node 1 "const0" is a constant`) || !strings.Contains(err.Error(), "constants must be exported as parameters") {
		t.Errorf("got %v", err)
	}
	if err := mxnet.SaveSymbol(filepath.Join(t.TempDir(), "c-symbol.json"), sym); err == nil {
		t.Error("SaveSymbol wrote a constant")
	}
}

func TestSymbolJSONReadsLegacyLayouts(t *testing.T) {
	// Numpy-semantics unknown dims (-1), Python 2 longs, dtype names, and
	// top-level attributes of any form are accepted.
	text := `{"nodes": [
	  {"op": "null", "name": "data", "attr": {"__shape__": "(-1, 4L)", "__dtype__": "float64"}},
	  {"op": "split", "name": "split0", "param": {"num_outputs": "2", "axis": "1"}, "inputs": [[0, 0]]},
	  {"op": "elemwise_add", "name": "add0", "inputs": [[1, 0], [1, 1]]}],
	 "heads": [[2, 0], [1, 1]], "attrs": {"mxnet_version": ["int", 905], "note": "x"}}`
	s, err := mxnet.DecodeSymbol([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.ListOutputs()); got != "[add0_output split0_output1]" {
		t.Errorf("outputs %s", got)
	}
	if got := s.Output(0).Shape().String() + " " + s.DType().String(); got != "?x2 float64" {
		t.Errorf("add0 is %s", got)
	}
	out, err := mxnet.EncodeSymbol(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"op": "SliceChannel"`, `"__shape__": "(0, 4)"`, `"__dtype__": "1"`, `"node_row_ptr": [0, 1, 3, 4]`, `"heads": [[2, 0, 0], [1, 1, 0]]`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("written file lacks %s:\n%s", want, out)
		}
	}
}

func TestSaveAndLoadSymbol(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "net-symbol.json")
	sym := cnn()
	if err := mxnet.SaveSymbol(path, sym); err != nil {
		t.Fatal(err)
	}
	// Saving again replaces the file and leaves no temporary behind.
	if err := mxnet.SaveSymbol(path, sym); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("directory holds %v (%v)", entries, err)
	}
	back, err := mxnet.LoadSymbol(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := mxnet.EncodeSymbol(sym)
	b, _ := mxnet.EncodeSymbol(back)
	if !bytes.Equal(a, b) {
		t.Errorf("loaded file differs")
	}
	if _, err := mxnet.LoadSymbol(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("loaded a missing file")
	}
	if _, err := mxnet.LoadSymbol(dir); err == nil {
		t.Error("loaded a directory")
	}
	bad := filepath.Join(dir, "bad-symbol.json")
	if err := os.WriteFile(bad, []byte(mxnetFile[:100]), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := mxnet.LoadSymbol(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("truncated file: %v", err)
	}
	if err := mxnet.SaveSymbol(filepath.Join(dir, "no", "such", "dir.json"), sym); err == nil {
		t.Error("saved into a missing directory")
	}
}

func ExampleEncodeSymbol() {
	tr := graph.NewTracer()
	x := graph.Var("data", ops.Shape{0, 2}, ops.Float32)
	tr.NameNext("relu0_fwd")
	y := tr.F().Activation(x, "relu").(*graph.Symbol)
	out, err := mxnet.EncodeSymbol(y)
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	// Output:
	// {
	//   "nodes": [
	//     {
	//       "op": "null",
	//       "name": "data",
	//       "attrs": {
	//         "__dtype__": "0",
	//         "__shape__": "(0, 2)"
	//       },
	//       "inputs": []
	//     },
	//     {
	//       "op": "Activation",
	//       "name": "relu0_fwd",
	//       "attrs": {
	//         "act_type": "relu"
	//       },
	//       "inputs": [[0, 0, 0]]
	//     }
	//   ],
	//   "arg_nodes": [0],
	//   "node_row_ptr": [0, 1, 2],
	//   "heads": [[1, 0, 0]],
	//   "attrs": {"mxnet_version": ["int", 10901]}
	// }
}

func TestSymbolJSONInfersUntilStable(t *testing.T) {
	// w's shape comes from fc_b, after relu0 and fc_a have used it: a
	// second pass is needed to fill w2 through relu0.
	text := `{"nodes": [
	  {"op": "null", "name": "w"},
	  {"op": "relu", "name": "relu0", "inputs": [[0, 0, 0]]},
	  {"op": "null", "name": "w2", "attrs": {"__shape__": "(5, 0)"}},
	  {"op": "FullyConnected", "name": "fc_a", "attrs": {"num_hidden": "5", "no_bias": "True"}, "inputs": [[1, 0, 0], [2, 0, 0]]},
	  {"op": "null", "name": "x", "attrs": {"__shape__": "(2, 4)", "__dtype__": "0"}},
	  {"op": "FullyConnected", "name": "fc_b", "attrs": {"num_hidden": "3", "no_bias": "True"}, "inputs": [[4, 0, 0], [0, 0, 0]]}],
	 "heads": [[3, 0, 0], [5, 0, 0]]}`
	s, err := mxnet.DecodeSymbol([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.Output(0).Shape(), s.Output(1).Shape()); got != "3x5 2x3" {
		t.Errorf("output shapes %s", got)
	}
	out, err := mxnet.EncodeSymbol(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"__shape__": "(5, 4)"`) {
		t.Errorf("w2 not inferred:\n%s", out)
	}
	back, err := mxnet.DecodeSymbol(out)
	if err != nil {
		t.Fatal(err)
	}
	if out2, _ := mxnet.EncodeSymbol(back); !bytes.Equal(out, out2) {
		t.Errorf("not stable:\n%s\nthen:\n%s", out, out2)
	}
}

func TestSymbolJSONBoundsOutputCounts(t *testing.T) {
	text := `{"nodes": [{"op": "null", "name": "x"},
	  {"op": "SliceChannel", "name": "s0", "attrs": {"num_outputs": "1e9"}, "inputs": [[0, 0, 0]]}],
	 "heads": [[1, 0, 0]]}`
	_, err := mxnet.DecodeSymbol([]byte(text))
	if err == nil || !strings.Contains(err.Error(), `node 1 "s0": SliceChannel has 1000000000 outputs`) {
		t.Errorf("got %v", err)
	}
}

func TestSymbolJSONBoundsInferredShapes(t *testing.T) {
	// Each expand_dims adds a dim: the shapes would grow with the square
	// of the file's size.
	var b strings.Builder
	b.WriteString(`{"nodes": [{"op": "null", "name": "x", "attrs": {"__shape__": "(1,)"}}`)
	const n = 3000
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,{"op":"expand_dims","name":"e%d","attrs":{"axis":"0"},"inputs":[[%d,0]]}`, i, i-1)
	}
	fmt.Fprintf(&b, `], "heads": [[%d, 0]]}`, n)
	_, err := mxnet.DecodeSymbol([]byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "more dims than a file of this size can describe") {
		t.Errorf("got %v", err)
	}
}

// sampleSymbols traces every registered op on each of its samples, with
// one variable of the sample's shape and dtype per input.
func sampleSymbols(t testing.TB) (names []string, syms []*graph.Symbol) {
	t.Helper()
	for _, op := range ops.All() {
		for k, smp := range op.Samples() {
			a, err := op.ParseAttrs(smp.Attrs)
			if err != nil {
				t.Fatalf("%s sample %d: %v", op.Name(), k, err)
			}
			vars := make([]ops.Tensor, len(smp.Inputs))
			for i, sh := range smp.Inputs {
				d := ops.Float32
				if smp.DTypes != nil {
					d = smp.DTypes[i]
				}
				vars[i] = graph.Var(fmt.Sprintf("in%d", i), sh, d)
			}
			outs, err := graph.NewTracer().F().Apply(op, a, vars...)
			if err != nil {
				t.Fatalf("%s sample %d: %v", op.Name(), k, err)
			}
			group := make([]*graph.Symbol, len(outs))
			for i, o := range outs {
				group[i] = o.(*graph.Symbol)
			}
			names = append(names, fmt.Sprintf("%s/%d", op.Name(), k))
			syms = append(syms, graph.Group(group...))
		}
	}
	return names, syms
}

// Every op's samples go through a symbol file and back unchanged, with
// the same inferred output shapes and dtypes.
func TestSymbolJSONRoundTripsEveryOp(t *testing.T) {
	names, syms := sampleSymbols(t)
	for i, s := range syms {
		first, err := mxnet.EncodeSymbol(s)
		if err != nil {
			t.Errorf("%s: %v", names[i], err)
			continue
		}
		back, err := mxnet.DecodeSymbol(first)
		if err != nil {
			t.Errorf("%s: %v\n%s", names[i], err, first)
			continue
		}
		second, err := mxnet.EncodeSymbol(back)
		if err != nil || !bytes.Equal(first, second) {
			t.Errorf("%s: round trip changed the file (%v):\n%s\nthen:\n%s", names[i], err, first, second)
		}
		for j, e := range s.Entries() {
			f := back.Entries()[j]
			if !e.Shape().Equal(f.Shape()) || e.DType() != f.DType() {
				t.Errorf("%s: output %d is %s, traced %s", names[i], j,
					graph.ShapeString(f.Shape(), f.DType()), graph.ShapeString(e.Shape(), e.DType()))
			}
		}
	}
}

// Files whose variables lack shapes (or the batch dim, or dtypes) load for
// every op: inference leaves unknown what it cannot tell, and the result
// writes and reads back unchanged.
func TestSymbolJSONLoadsEveryOpWithUnknownShapes(t *testing.T) {
	for k, forget := range []func(n *graph.Node){
		func(n *graph.Node) { n.Shapes[0] = nil },
		func(n *graph.Node) {
			if len(n.Shapes[0]) > 0 {
				n.Shapes[0][0] = 0
			}
		},
		func(n *graph.Node) { n.Shapes[0], n.DTypes[0] = nil, ops.Unknown },
	} {
		names, syms := sampleSymbols(t)
		for i, s := range syms {
			for _, n := range s.Graph().Inputs() {
				forget(n)
			}
			text, err := mxnet.EncodeSymbol(s)
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := mxnet.DecodeSymbol(text)
			if err != nil {
				t.Errorf("%s, variant %d: %v", names[i], k, err)
				continue
			}
			first, _ := mxnet.EncodeSymbol(loaded)
			back, err := mxnet.DecodeSymbol(first)
			if err != nil {
				t.Errorf("%s, variant %d: reloading: %v", names[i], k, err)
				continue
			}
			if second, _ := mxnet.EncodeSymbol(back); !bytes.Equal(first, second) {
				t.Errorf("%s, variant %d: not stable:\n%s\nthen:\n%s", names[i], k, first, second)
			}
		}
	}
}

func ExampleDecodeSymbolWithParams() {
	// A PReLU whose gamma declares no shape, and data of unknown shape:
	// only the params file says what gamma is.
	const file = `{"nodes": [
	  {"op": "null", "name": "data", "inputs": []},
	  {"op": "null", "name": "relu0_gamma", "inputs": []},
	  {"op": "LeakyReLU", "name": "relu0", "attrs": {"act_type": "prelu"}, "inputs": [[0, 0, 0], [1, 0, 0]]}],
	 "arg_nodes": [0, 1], "heads": [[2, 0, 0]]}`
	params := []mxnet.NamedArray{{Name: "arg:relu0_gamma", Array: eager.Full(0.25, 64)}}
	sym, err := mxnet.DecodeSymbolWithParams([]byte(file), params)
	if err != nil {
		panic(err)
	}
	for _, n := range sym.Graph().Arguments() {
		fmt.Println(n.Name, graph.ShapeString(n.Shapes[0], n.DTypes[0]))
	}
	// Output:
	// data ? unknown
	// relu0_gamma 64 float32
}
