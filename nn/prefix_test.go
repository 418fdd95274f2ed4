package nn_test

import (
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
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

// outside is a block that makes its child outside its name scope.
type outside struct {
	nn.HybridBlock
	Inner *nn.Dense
}

func (o *outside) HybridForward(F ops.F, x ops.Tensor) ops.Tensor { return o.Inner.Forward(x) }

// TestNameChildrenOutside: the children of such a block are named in
// its parent's scope, counted with its siblings, as Gluon names the
// children a block makes without entering its name_scope.
func TestNameChildrenOutside(t *testing.T) {
	o := &outside{Inner: nn.NewDense(2)}
	o.Bind(o, "outside")
	o.NameChildrenOutside()
	net := nn.NewHybridSequential(nn.NewDense(3), o)
	net.SetPrefix("net_")
	if got := o.Prefix(); got != "net_outside0_" {
		t.Errorf("the block's prefix is %q, want net_outside0_", got)
	}
	if got := o.Inner.Prefix(); got != "net_dense1_" {
		t.Errorf("its child's prefix is %q, want net_dense1_ (after its sibling net_dense0_)", got)
	}
}
