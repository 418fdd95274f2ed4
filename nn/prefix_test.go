package nn_test

import (
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/nn"
)

// TestSetPrefix checks Gluon's prefix argument: an empty prefix shares
// the parent's prefix and counters, a named one replaces type and count.
func TestSetPrefix(t *testing.T) {
	d := func() *nn.Dense { return nn.NewDense(1, nn.DenseOptions{InUnits: 1, NoBias: true}) }
	shared := nn.NewHybridSequential(d(), d())
	shared.SetPrefix("")
	stage := nn.NewHybridSequential(d())
	stage.SetPrefix("stage1_")
	inner := nn.NewHybridSequential(d())
	inner.SetPrefix("")
	stage.Add(inner)
	net := &featuresNet{Features: shared, Output: d()}
	net.Bind(net, "model")
	shared.Add(stage, d())
	want := []string{"dense0_weight", "dense1_weight", "stage1_dense0_weight", "stage1_dense1_weight", "dense2_weight", "dense3_weight"}
	names := net.CollectParams().Names()
	if len(names) != len(want) {
		t.Fatalf("names %v, want %d", names, len(want))
	}
	for i, n := range names {
		if !strings.HasPrefix(n, "model") || !strings.HasSuffix(n, "_"+want[i]) || strings.Count(n, "_") != strings.Count(want[i], "_")+1 {
			t.Errorf("parameter %d is %s, want model<n>_%s", i, n, want[i])
		}
	}
	// Set after the block was added, the prefix renames it in place.
	net.Output.SetPrefix("head_")
	if got, want := net.Output.Weight.Name(), net.Name()+"_head_weight"; got != want {
		t.Errorf("after SetPrefix, the output's weight is %s, want %s", got, want)
	}
	top := nn.NewDense(1)
	top.SetPrefix("head_")
	if got := top.Weight.Name(); got != "head_weight" {
		t.Errorf("a top-level block with prefix head_ names its weight %s", got)
	}
}
