package graph

import (
	"testing"

	"github.com/hybridgo/hybridgo/ops"
)

// A program that leaves out the data's gradient has fewer backward steps
// and no gradient slot for the data.
func TestCompileLeavesOutGradients(t *testing.T) {
	tr := NewTracer()
	F := tr.F()
	x := Var("data", ops.Shape{4, 8}, ops.Float32)
	w := Var("w", ops.Shape{3, 8}, ops.Float32)
	b := Var("b", ops.Shape{3}, ops.Float32)
	y := F.Relu(F.FullyConnected(x, w, b, 3)).(*Symbol)
	inputs := []string{"data", "w", "b"}
	shapes := []ops.Shape{{4, 8}, {3, 8}, {3}}
	dtypes := []ops.DType{ops.Float32, ops.Float32, ops.Float32}
	passes := DefaultPassOptions()
	all, err := compile(y.outs, inputs, shapes, dtypes, nil, &passes, false)
	if err != nil {
		t.Fatal(err)
	}
	some, err := compile(y.outs, inputs, shapes, dtypes, []bool{true, false, false}, &passes, false)
	if err != nil {
		t.Fatal(err)
	}
	if all.gradSlot[0] < 0 || some.gradSlot[0] >= 0 || some.gradSlot[1] < 0 || some.gradSlot[2] < 0 {
		t.Errorf("gradient slots: all %v, without the data's %v", all.gradSlot, some.gradSlot)
	}
	if back := func(p *program) int { return len(p.steps) - p.nForward }; back(some) >= back(all) {
		t.Errorf("leaving out the data's gradient kept %d backward steps of %d", back(some), back(all))
	}
}
