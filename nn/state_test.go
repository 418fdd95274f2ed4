package nn_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// TestNamesCountPerState checks both name counters kept in an
// eager.State: nn's top-level block names and graph.F's node names.
func TestNamesCountPerState(t *testing.T) {
	x := graph.Var("data", ops.Shape{2}, ops.Float32)
	a, b := eager.NewState(), eager.NewState()
	tests := []struct {
		state       *eager.State
		name        string
		block, relu string
	}{
		{a, "a", "dense0", "relu0"},
		{a, "a", "dense1", "relu1"},
		{b, "b", "dense0", "relu0"}, // b counts on its own
		{a, "a", "dense2", "relu2"},
	}
	for i, tt := range tests {
		restore := eager.UseState(tt.state)
		block := nn.NewDense(2).Name()
		relu := graph.F.Relu(x).(*graph.Symbol).Name()
		restore()
		if block != tt.block || relu != tt.relu {
			t.Errorf("step %d, in %s: block %q and node %q, want %q and %q", i, tt.name, block, relu, tt.block, tt.relu)
		}
	}
}
