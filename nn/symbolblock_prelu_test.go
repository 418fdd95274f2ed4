package nn_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// preluSymbol is an MXNet 1.0-era export: a convolution then a PReLU
// whose gamma declares no shape ("attr" for "attrs", 2-element inputs).
// dataShape and gammaShape go into the variables' __shape__ when not "".
func preluSymbol(dataShape, gammaShape string) string {
	shape := func(s string) string {
		if s == "" {
			return `{}`
		}
		return `{"__shape__": "` + s + `"}`
	}
	return `{
  "nodes": [
    {"op": "null", "name": "data", "attr": ` + shape(dataShape) + `, "inputs": []},
    {"op": "null", "name": "conv0_weight", "inputs": []},
    {"op": "Convolution", "name": "conv0", "attr": {"kernel": "(1, 1)", "num_filter": "4", "no_bias": "True"}, "inputs": [[0, 0], [1, 0]]},
    {"op": "null", "name": "relu0_gamma", "attr": ` + shape(gammaShape) + `, "inputs": []},
    {"op": "LeakyReLU", "name": "relu0", "attr": {"act_type": "prelu"}, "inputs": [[2, 0], [3, 0]]}
  ],
  "arg_nodes": [0, 1, 3],
  "heads": [[4, 0]],
  "attrs": {"mxnet_version": ["int", 1000]}
}`
}

// TestSymbolBlockImportsPReLU loads PReLUs whose gamma's shape the
// params file alone gives, as MXNet's SymbolBlock.imports does: the
// file's shape wins over an inferred one, not over a declared one.
func TestSymbolBlockImportsPReLU(t *testing.T) {
	weight := make([]float32, 4*3)
	for i := range weight {
		weight[i] = float32(i%5) - 2
	}
	tests := []struct {
		name                  string
		dataShape, gammaShape string // declared in the symbol file
		gamma                 []float32
		err                   string
	}{
		// The reported failure: data of unknown shape, gamma (C,) in the file.
		{name: "data unknown, gamma per channel", gamma: []float32{0.1, 0.2, 0.3, 0.4}},
		// The data's shape lets gamma be inferred as (4,); the file's (1,) wins.
		{name: "data declared, one slope", dataShape: "(2, 3, 5, 5)", gamma: []float32{0.25}},
		{name: "data declared, gamma per channel", dataShape: "(2, 3, 5, 5)", gamma: []float32{0.1, 0.2, 0.3, 0.4}},
		// A declared shape still wins.
		{name: "gamma declared", gammaShape: "(1,)", gamma: []float32{0.1, 0.2, 0.3, 0.4},
			err: `parameter "arg:relu0_gamma" has shape (4,), but the symbol file declares (1,)`},
		// And a file's shape that contradicts the graph is still an error.
		{name: "gamma contradicts the data", dataShape: "(2, 3, 5, 5)", gamma: []float32{0.1, 0.2, 0.3},
			err: "gamma 3 has 3 slopes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			symFile, paramFile := filepath.Join(dir, "m-symbol.json"), filepath.Join(dir, "m-0000.params")
			if err := os.WriteFile(symFile, []byte(preluSymbol(tt.dataShape, tt.gammaShape)), 0o644); err != nil {
				t.Fatal(err)
			}
			gamma := eager.Array(tt.gamma, len(tt.gamma))
			if err := mxnet.SaveParams(paramFile, []mxnet.NamedArray{
				{Name: "arg:conv0_weight", Array: eager.Array(weight, 4, 3, 1, 1)},
				{Name: "arg:relu0_gamma", Array: gamma},
			}); err != nil {
				t.Fatal(err)
			}
			sb, err := nn.SymbolBlockImports(symFile, []string{"data"}, paramFile)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := sb.Params[1].Shape(); !s.Equal(ops.Shape{len(tt.gamma)}) {
				t.Errorf("gamma has shape %v, want (%d,)", s, len(tt.gamma))
			}
			x := eager.RandomUniform(2, 3, 5, 5)
			x = eager.F.Sub(x, eager.ScalarArray(0.5)).(*eager.NDArray)
			F := eager.F
			conv := F.Convolution(x, eager.Array(weight, 4, 3, 1, 1), nil, []int{1, 1}, 4)
			want := F.PReLU(conv, gamma).(*eager.NDArray).Float64s()
			for _, hybrid := range []bool{false, true} {
				if hybrid {
					sb.Hybridize()
				}
				y := sb.Forward(x)
				if !y.Shape().Equal(ops.Shape{2, 4, 5, 5}) || optest.FirstDiff(y.Float64s(), want, 1e-6, 1e-6) >= 0 {
					t.Errorf("hybridized=%v: got %v, want the PReLU of the convolution", hybrid, y.Shape())
				}
			}
		})
	}
}
