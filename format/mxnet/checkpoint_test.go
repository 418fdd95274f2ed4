package mxnet_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// A graph and its parameters saved here load back here and give the same
// outputs; saving the loaded model again gives the same bytes.
func TestCheckpointRoundTrip(t *testing.T) {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("data", ops.Shape{0, 1, 28, 28}, ops.Float32)
	v := func(n string) ops.Tensor { return graph.Var(n, nil, ops.Unknown) }
	h := F.BatchNorm(F.Convolution(x, v("conv0_weight"), v("conv0_bias"), []int{3, 3}, 4), v("bn0_gamma"), v("bn0_beta"), v("bn0_moving_mean"), v("bn0_moving_var"))
	h = F.Pooling(F.Relu(h), []int{2, 2}, "max", ops.Attr{Name: "stride", Value: []int{2, 2}})
	h = F.FullyConnected(h, v("dense0_weight"), v("dense0_bias"), 10)
	h = F.Add(h, eager.Arange(0, 10, 1)) // a constant: exported as a parameter
	sym := h.(*graph.Symbol)

	eager.Seed(3)
	params := map[string]*eager.NDArray{
		"conv0_weight": eager.RandomNormal(4, 1, 3, 3), "conv0_bias": eager.RandomNormal(4),
		"bn0_gamma": eager.RandomUniform(4), "bn0_beta": eager.RandomNormal(4),
		"bn0_moving_mean": eager.RandomNormal(4), "bn0_moving_var": eager.F.PlusScalar(eager.RandomUniform(4), 0.5).(*eager.NDArray),
		"dense0_weight": eager.RandomNormal(10, 4*13*13), "dense0_bias": eager.RandomNormal(10),
	}
	data := eager.RandomNormal(2, 1, 28, 28)
	bind := map[string]*eager.NDArray{"data": data}
	for k, v := range params {
		bind[k] = v
	}
	want, err := sym.Eval(bind)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	prefix := filepath.Join(dir, "model")
	if err := mxnet.SaveCheckpoint(prefix, 1, sym, params); err != nil {
		t.Fatal(err)
	}
	loaded, lp, err := mxnet.LoadCheckpoint(prefix, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(loaded.ListAuxiliaryStates(), " "); got != "bn0_moving_mean bn0_moving_var" {
		t.Errorf("aux states %q", got)
	}
	if _, ok := lp["const0"]; !ok {
		t.Errorf("the constant was not exported as a parameter: %v", loaded.ListInputs())
	}
	lp["data"] = data
	got, err := loaded.Eval(lp)
	if err != nil {
		t.Fatal(err)
	}
	if d := optest.FirstDiff(got[0].Float64s(), want[0].Float64s(), 0, 0); d >= 0 {
		t.Errorf("reloaded model differs at %d", d)
	}
	// Saving what was loaded reproduces both files byte for byte.
	delete(lp, "data")
	again := filepath.Join(dir, "again")
	if err := mxnet.SaveCheckpoint(again, 1, loaded, lp); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"-symbol.json", "-0001.params"} {
		a, _ := os.ReadFile(prefix + f)
		b, _ := os.ReadFile(again + f)
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs after a reload", f)
		}
	}
}

func TestCheckpointErrors(t *testing.T) {
	x := graph.Var("data", ops.Shape{0, 4}, ops.Float32)
	sym := graph.F.FullyConnected(x, graph.Var("w", nil, ops.Unknown), graph.Var("b", nil, ops.Unknown), 3).(*graph.Symbol)
	dir := t.TempDir()
	err := mxnet.SaveCheckpoint(filepath.Join(dir, "m"), 0, sym, map[string]*eager.NDArray{"w": eager.Zeros(3, 4), "b": eager.Zeros(3), "extra": eager.Zeros(1)})
	if err == nil || !strings.Contains(err.Error(), "parameter extra is not a variable") {
		t.Errorf("extra parameter: %v", err)
	}
	err = mxnet.SaveCheckpoint(filepath.Join(dir, "m"), 0, sym, map[string]*eager.NDArray{"w": eager.Zeros(3, 5), "b": eager.Zeros(3)})
	if err == nil || !strings.Contains(err.Error(), "parameter w is 3x5 but the graph declares 3x4") {
		t.Errorf("wrong shape: %v", err)
	}
	// A params file that does not fit the symbol file.
	prefix := filepath.Join(dir, "ok")
	if err := mxnet.SaveCheckpoint(prefix, 0, sym, map[string]*eager.NDArray{"w": eager.Zeros(3, 4), "b": eager.Zeros(3)}); err != nil {
		t.Fatal(err)
	}
	mxnet.SaveParams(mxnet.ParamsFile(prefix, 0), []mxnet.NamedArray{{Name: "arg:w", Array: eager.Zeros(2, 4)}})
	if _, _, err := mxnet.LoadCheckpoint(prefix, 0); err == nil || !strings.Contains(err.Error(), `parameter "arg:w" has shape (2, 4), but the symbol file declares (3, 4)`) {
		t.Errorf("mismatched params file: %v", err)
	}
}
