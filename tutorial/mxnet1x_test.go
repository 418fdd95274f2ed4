package tutorial

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
)

// The export tutorial loads a model "exported by MXNet 1.x": the files
// tutorials/testdata/mxnet1x-symbol.json and mxnet1x-0000.params. MXNet
// cannot run here, so this file writes them byte by byte from the facts
// of the two formats (docs: shared/design/mxnet-formats.md), in the
// layout MXNet 1.9's HybridBlock.export gives them, and not with
// hybridgo's own writer, so that loading them tests the reader on
// MXNet's layout. The model is what this Gluon code would export:
//
//	net = nn.HybridSequential()
//	net.add(nn.Flatten(), nn.Dense(8), nn.BatchNorm(), nn.Activation("relu"), nn.Dense(3))
//	net.initialize(); net.hybridize(); net(mx.nd.ones((1, 1, 4, 4)))
//	net.export("mxnet1x")  # mxnet1x-symbol.json, mxnet1x-0000.params
//
// go test ./tutorial/ -run MXNet1x -update writes the files again.

// mxParam is one parameter of the fixture: its name, the __shape__ its
// variable carries in the symbol file (0 for dims Gluon had not inferred
// when it traced), its real shape, its Gluon initializer, and its values.
type mxParam struct {
	name     string
	declared string
	shape    []int64
	init     string // "" for none (the weights: the block's default)
	aux      bool
	values   []float32
}

// fixtureValues returns n deterministic values in [lo, hi), multiples of
// 1/64, from a linear congruential generator.
func fixtureValues(n int, seed uint32, lo, hi float32) []float32 {
	v := make([]float32, n)
	s := seed
	for i := range v {
		s = s*1664525 + 1013904223
		u := float32(s>>8) / float32(1<<24)
		v[i] = float32(math.Round(float64(lo+(hi-lo)*u)*64)) / 64
	}
	return v
}

// mxnet1xParams are the fixture's parameters, in the order Gluon's
// collect_params lists them (and export saves them).
func mxnet1xParams() []mxParam {
	return []mxParam{
		{"dense0_weight", "(8, 0)", []int64{8, 16}, "", false, fixtureValues(8*16, 1, -0.5, 0.5)},
		{"dense0_bias", "(8,)", []int64{8}, "zeros", false, fixtureValues(8, 2, -0.25, 0.25)},
		{"batchnorm0_gamma", "(0,)", []int64{8}, "ones", false, fixtureValues(8, 3, 0.5, 1.5)},
		{"batchnorm0_beta", "(0,)", []int64{8}, "zeros", false, fixtureValues(8, 4, -0.25, 0.25)},
		{"batchnorm0_running_mean", "(0,)", []int64{8}, "zeros", true, fixtureValues(8, 5, -0.5, 0.5)},
		{"batchnorm0_running_var", "(0,)", []int64{8}, "ones", true, fixtureValues(8, 6, 0.5, 2)},
		{"dense1_weight", "(3, 0)", []int64{3, 8}, "", false, fixtureValues(3*8, 7, -0.5, 0.5)},
		{"dense1_bias", "(3,)", []int64{3}, "zeros", false, fixtureValues(3, 8, -0.25, 0.25)},
	}
}

// jsonWriter writes JSON as dmlc-core's JSONWriter, which MXNet uses:
// two spaces of indent, ", " then a new line between the items of a
// multi-line object or array, objects of more than one entry and arrays
// of more than ten items on several lines, smaller ones on one.
type jsonWriter struct {
	b      bytes.Buffer
	indent int
}

func (w *jsonWriter) newline() {
	w.b.WriteString("\n" + strings.Repeat("  ", w.indent))
}

// kv is one entry of an object: a key and its value, already written.
type kv struct{ key, value string }

// object writes entries as an object; multi says whether one per line.
func (w *jsonWriter) object(entries []kv, multi bool) string {
	var b strings.Builder
	b.WriteString("{")
	for i, e := range entries {
		if i > 0 {
			b.WriteString(", ")
		}
		if multi {
			b.WriteString("\n" + strings.Repeat("  ", w.indent+1))
		}
		fmt.Fprintf(&b, "%q: %s", e.key, e.value)
	}
	if multi {
		b.WriteString("\n" + strings.Repeat("  ", w.indent))
	}
	b.WriteString("}")
	return b.String()
}

// strMap writes a map of strings, keys in order (std::map).
func (w *jsonWriter) strMap(keys []string, m map[string]string) string {
	var e []kv
	for _, k := range keys {
		e = append(e, kv{k, fmt.Sprintf("%q", m[k])})
	}
	return w.object(e, len(e) > 1)
}

// ints writes an array of integers, one per line when more than ten.
func (w *jsonWriter) ints(xs []int) string {
	var b strings.Builder
	multi := len(xs) > 10
	b.WriteString("[")
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		if multi {
			b.WriteString("\n" + strings.Repeat("  ", w.indent+1))
		}
		fmt.Fprint(&b, x)
	}
	if multi {
		b.WriteString("\n" + strings.Repeat("  ", w.indent))
	}
	b.WriteString("]")
	return b.String()
}

// mxNode is a node of the fixture's graph.
type mxNode struct {
	op, name string
	attrs    map[string]string
	inputs   [][3]int // node, output, version
	outputs  int
}

// mxnet1xSymbol returns the fixture's symbol file.
func mxnet1xSymbol() []byte {
	varNode := func(p mxParam) mxNode {
		a := map[string]string{"__dtype__": "0", "__lr_mult__": "1.0", "__shape__": p.declared, "__storage_type__": "0", "__wd_mult__": "1.0"}
		if p.init != "" {
			a["__init__"] = p.init
		}
		return mxNode{op: "null", name: p.name, attrs: a, outputs: 1}
	}
	ps := mxnet1xParams()
	nodes := []mxNode{
		{op: "null", name: "data", outputs: 1},                                              // 0
		{op: "Flatten", name: "flatten0_flatten0", inputs: [][3]int{{0, 0, 0}}, outputs: 1}, // 1
		varNode(ps[0]), varNode(ps[1]), // 2, 3
		{op: "FullyConnected", name: "dense0_fwd", attrs: map[string]string{"flatten": "True", "no_bias": "False", "num_hidden": "8"},
			inputs: [][3]int{{1, 0, 0}, {2, 0, 0}, {3, 0, 0}}, outputs: 1}, // 4
		varNode(ps[2]), varNode(ps[3]), varNode(ps[4]), varNode(ps[5]), // 5..8
		// BatchNorm mutates its moving statistics: their entries are at
		// version 1. It has three outputs, one of them visible.
		{op: "BatchNorm", name: "batchnorm0_fwd", attrs: map[string]string{"axis": "1", "eps": "1e-05", "fix_gamma": "False", "momentum": "0.9", "use_global_stats": "False"},
			inputs: [][3]int{{4, 0, 0}, {5, 0, 0}, {6, 0, 0}, {7, 0, 1}, {8, 0, 1}}, outputs: 3}, // 9
		{op: "Activation", name: "relu0_fwd", attrs: map[string]string{"act_type": "relu"}, inputs: [][3]int{{9, 0, 0}}, outputs: 1}, // 10
		varNode(ps[6]), varNode(ps[7]), // 11, 12
		{op: "FullyConnected", name: "dense1_fwd", attrs: map[string]string{"flatten": "True", "no_bias": "False", "num_hidden": "3"},
			inputs: [][3]int{{10, 0, 0}, {11, 0, 0}, {12, 0, 0}}, outputs: 1}, // 13
	}
	w := &jsonWriter{}
	w.b.WriteString("{")
	w.indent = 1
	w.newline()
	w.b.WriteString(`"nodes": [`)
	var args, rowPtr []int
	row := 0
	for i, n := range nodes {
		if i > 0 {
			w.b.WriteString(", ")
		}
		w.indent = 2
		w.newline()
		w.indent = 3
		w.b.WriteString("{")
		w.newline()
		fmt.Fprintf(&w.b, `"op": %q, `, n.op)
		w.newline()
		fmt.Fprintf(&w.b, `"name": %q, `, n.name)
		if len(n.attrs) > 0 {
			var keys []string
			for k := range n.attrs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			w.newline()
			fmt.Fprintf(&w.b, `"attrs": %s, `, w.strMap(keys, n.attrs))
		}
		w.newline()
		var ins []string
		for _, e := range n.inputs {
			ins = append(ins, fmt.Sprintf("[%d, %d, %d]", e[0], e[1], e[2]))
		}
		fmt.Fprintf(&w.b, `"inputs": [%s]`, strings.Join(ins, ", "))
		w.indent = 2
		w.newline()
		w.b.WriteString("}")
		if n.op == "null" {
			args = append(args, i)
		}
		rowPtr = append(rowPtr, row)
		row += n.outputs
	}
	rowPtr = append(rowPtr, row)
	w.indent = 1
	w.newline()
	w.b.WriteString("], ")
	w.newline()
	fmt.Fprintf(&w.b, `"arg_nodes": %s, `, w.ints(args))
	w.newline()
	fmt.Fprintf(&w.b, `"node_row_ptr": %s, `, w.ints(rowPtr))
	w.newline()
	fmt.Fprintf(&w.b, `"heads": [[%d, 0, 0]], `, len(nodes)-1)
	w.newline()
	w.b.WriteString(`"attrs": {"mxnet_version": ["int", 10901]}`)
	w.indent = 0
	w.newline()
	w.b.WriteString("}")
	return w.b.Bytes()
}

// mxnet1xParamsFile returns the fixture's params file: an NDArray list
// (magic 0x112), each array in the V2 layout (magic 0xF993FAC9, dense,
// cpu(0), float32), then the names, "arg:" or "aux:" and the parameter's
// name, as export writes them. All integers are little-endian.
func mxnet1xParamsFile() []byte {
	var b bytes.Buffer
	put := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	ps := mxnet1xParams()
	put(uint64(0x112)) // kMXAPINDArrayListMagic
	put(uint64(0))     // reserved
	put(uint64(len(ps)))
	for _, p := range ps {
		put(uint32(0xF993FAC9)) // NDARRAY_V2_MAGIC
		put(int32(0))           // storage type: dense
		put(int32(len(p.shape)))
		put(p.shape)  // int64 dims
		put(int32(1)) // device type: cpu
		put(int32(0)) // device id
		put(int32(0)) // type flag: float32
		put(p.values)
	}
	put(uint64(len(ps)))
	for _, p := range ps {
		name := "arg:" + p.name
		if p.aux {
			name = "aux:" + p.name
		}
		put(uint64(len(name)))
		b.WriteString(name)
	}
	return b.Bytes()
}

// mxnet1xForward computes the fixture's model in float64 for an input of
// 16 features: dense0, BatchNorm with the moving statistics (as in
// prediction), relu, dense1.
func mxnet1xForward(x []float64) []float64 {
	ps := mxnet1xParams()
	w0, b0, gamma, beta, mean, variance, w1, b1 := ps[0].values, ps[1].values, ps[2].values, ps[3].values, ps[4].values, ps[5].values, ps[6].values, ps[7].values
	h := make([]float64, 8)
	for j := range h {
		s := float64(b0[j])
		for k := range 16 {
			s += float64(w0[j*16+k]) * x[k]
		}
		s = float64(gamma[j])*(s-float64(mean[j]))/math.Sqrt(float64(variance[j])+1e-5) + float64(beta[j])
		h[j] = math.Max(s, 0)
	}
	out := make([]float64, 3)
	for j := range out {
		s := float64(b1[j])
		for k := range 8 {
			s += float64(w1[j*8+k]) * h[k]
		}
		out[j] = s
	}
	return out
}

// TestMXNet1xFixture checks that the committed files are what this file
// writes (-update writes them), and that SymbolBlockImports loads them and
// computes what the model should.
func TestMXNet1xFixture(t *testing.T) {
	dir := filepath.Join("..", filepath.FromSlash(Testdata))
	files := map[string][]byte{
		"mxnet1x-symbol.json": mxnet1xSymbol(),
		"mxnet1x-0000.params": mxnet1xParamsFile(),
	}
	for name, want := range files {
		path := filepath.Join(dir, name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./tutorial/ -run MXNet1x -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what mxnet1x_test.go writes: go test ./tutorial/ -run MXNet1x -update", path)
		}
	}
	sb, err := nn.SymbolBlockImports(filepath.Join(dir, "mxnet1x-symbol.json"), []string{"data"}, filepath.Join(dir, "mxnet1x-0000.params"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range sb.Params {
		names = append(names, fmt.Sprintf("%s %v", p.Name(), p.Shape()))
	}
	if got, want := strings.Join(names, ", "), "dense0_weight 8x16, dense0_bias 8, batchnorm0_gamma 8, batchnorm0_beta 8, "+
		"dense1_weight 3x8, dense1_bias 3, batchnorm0_running_mean 8, batchnorm0_running_var 8"; got != want { // arguments, then aux states
		t.Errorf("parameters:\n%s\nwant:\n%s", got, want)
	}
	x := fixtureValues(2*16, 9, 0, 1)
	for _, hybrid := range []bool{false, true} {
		if hybrid {
			sb.Hybridize()
		}
		y := sb.Forward(eager.Array(x, 2, 1, 4, 4)).(*eager.NDArray)
		got := y.Float64s()
		for i := range 2 {
			in := make([]float64, 16)
			for k := range in {
				in[k] = float64(x[i*16+k])
			}
			for j, w := range mxnet1xForward(in) {
				if math.Abs(got[i*3+j]-w) > 1e-4 {
					t.Errorf("hybridized=%v: output [%d, %d] = %v, want %v", hybrid, i, j, got[i*3+j], w)
				}
			}
		}
	}
}
