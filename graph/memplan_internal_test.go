package graph

import (
	"testing"

	"github.com/hybridgo/hybridgo/ops"
)

// Without in-place writes, a chain of unary ops alternates between two
// buffers: each op reads one while writing the other.
func TestPlanMemoryChainWithoutInPlace(t *testing.T) {
	tr := NewTracer()
	f := tr.F()
	var y ops.Tensor = Var("x", ops.Shape{4, 5}, ops.Float32)
	for range 6 {
		y = f.Sigmoid(y)
	}
	g := y.(*Symbol).Graph()
	p, _, err := planMemory(g, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `memory plan: 2 buffers, 160 bytes planned, 480 bytes with one buffer per output
buffer  dtype    elems  bytes  entries
0       float32  20     80     sigmoid0, sigmoid2, sigmoid4
1       float32  20     80     sigmoid1, sigmoid3, sigmoid5
`
	if got := p.String(); got != want {
		t.Errorf("plan:\n%s\nwant:\n%s", got, want)
	}
	if len(p.InPlace) != 0 {
		t.Errorf("in place: %v", p.InPlace)
	}
	p, _, err = planMemory(g, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Buffers) != 1 || len(p.InPlace) != 5 {
		t.Errorf("with in place:\n%s", p)
	}
}
