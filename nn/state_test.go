package nn_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
)

func TestBlockNamesCountPerState(t *testing.T) {
	a, b := eager.NewState(), eager.NewState()
	tests := []struct {
		state *eager.State
		name  string
		want  string
	}{
		{a, "a", "dense0"},
		{a, "a", "dense1"},
		{b, "b", "dense0"}, // b counts on its own
		{a, "a", "dense2"},
	}
	for i, tt := range tests {
		restore := eager.UseState(tt.state)
		got := nn.NewDense(2).Name()
		restore()
		if got != tt.want {
			t.Errorf("step %d, in %s: the block is %q, want %q", i, tt.name, got, tt.want)
		}
	}
}
