package graph_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

func TestFNamesCountPerState(t *testing.T) {
	x := graph.Var("data", ops.Shape{2}, ops.Float32)
	a, b := eager.NewState(), eager.NewState()
	tests := []struct {
		state *eager.State
		name  string
		want  string
	}{
		{a, "a", "relu0"},
		{a, "a", "relu1"},
		{b, "b", "relu0"}, // b counts on its own
		{a, "a", "relu2"},
	}
	for i, tt := range tests {
		restore := eager.UseState(tt.state)
		got := graph.F.Relu(x).(*graph.Symbol).Name()
		restore()
		if got != tt.want {
			t.Errorf("step %d, in %s: the node is %q, want %q", i, tt.name, got, tt.want)
		}
	}
}
