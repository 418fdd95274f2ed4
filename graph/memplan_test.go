package graph_test

import (
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// checkPlan verifies a memory plan against the graph: every op-node output
// has a buffer of its dtype that is large enough, entries that share a
// buffer never live at once (except an in-place write over the input it
// replaces), and graph outputs have buffers of their own.
func checkPlan(t *testing.T, what string, g *graph.Graph, p *graph.MemoryPlan) {
	t.Helper()
	pos := map[*graph.Node]int{}
	for i, n := range g.Nodes {
		pos[n] = i
	}
	end := len(g.Nodes)
	last := map[graph.Entry]int{}
	for i, n := range g.Nodes {
		for _, in := range n.Inputs {
			last[in] = i
		}
	}
	for _, o := range g.Outputs {
		last[o] = end
	}
	var entries []graph.Entry
	var naive int64
	for _, n := range g.Nodes {
		if n.IsVar() {
			continue
		}
		for j := range n.Shapes {
			e := graph.Entry{Node: n, Index: j}
			entries = append(entries, e)
			naive += int64(n.Shapes[j].Size() * n.DTypes[j].Size())
			if _, ok := last[e]; !ok {
				last[e] = pos[n]
			}
			b, ok := p.EntryBuffer[e]
			if !ok {
				t.Errorf("%s: %s output %d has no buffer", what, n.Name, j)
				continue
			}
			buf := p.Buffers[b]
			if buf.DType != n.DTypes[j] || buf.Elems < n.Shapes[j].Size() {
				t.Errorf("%s: %s output %d (%v) is in buffer %d of %d %v", what, n.Name, j, graph.ShapeString(n.Shapes[j], n.DTypes[j]), b, buf.Elems, buf.DType)
			}
		}
	}
	if naive != p.NaiveBytes {
		t.Errorf("%s: naive bytes %d, want %d", what, p.NaiveBytes, naive)
	}
	var planned int64
	for _, b := range p.Buffers {
		planned += int64(b.Elems * b.DType.Size())
	}
	if planned != p.PlannedBytes {
		t.Errorf("%s: planned bytes %d, buffers add up to %d", what, p.PlannedBytes, planned)
	}
	for i, a := range entries {
		for _, b := range entries[i+1:] {
			if p.EntryBuffer[a] != p.EntryBuffer[b] {
				continue
			}
			// a is written first (entries are in node order).
			switch da, db := pos[a.Node], pos[b.Node]; {
			case last[a] < db:
			case last[a] == db && b.Index == 0 && p.InPlace[b.Node] && b.Node.Inputs[0] == a:
			case da == db:
				t.Errorf("%s: outputs %d and %d of %s share buffer %d", what, a.Index, b.Index, a.Node.Name, p.EntryBuffer[a])
			default:
				t.Errorf("%s: %s (live to node %d) and %s (written at node %d) share buffer %d", what, a.Node.Name, last[a], b.Node.Name, db, p.EntryBuffer[a])
			}
		}
	}
}

// unaryChain traces n unary ops on a 4x5 float32 variable.
func unaryChain(n int) *graph.Graph {
	tr := graph.NewTracer()
	F := tr.F()
	var y ops.Tensor = graph.Var("x", ops.Shape{4, 5}, ops.Float32)
	for i := range n {
		if i%2 == 0 {
			y = F.Relu(y)
		} else {
			y = F.Tanh(y)
		}
	}
	return y.(*graph.Symbol).Graph()
}

func TestPlanMemoryChainRunsInPlace(t *testing.T) {
	g := unaryChain(6)
	p, rep, err := graph.PlanMemory(g)
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, "chain", g, p)
	checkText(t, "plan", p.String(), `memory plan: 1 buffer, 80 bytes planned, 480 bytes with one buffer per output
buffer  dtype    elems  bytes  entries
0       float32  20     80     relu0, tanh0*, relu1*, tanh1*, relu2*, tanh2*
`)
	checkText(t, "report", rep.String(), `PlanMemory: 6 changes
  tanh0 writes in place over relu0 (buffer 0)
  relu1 writes in place over tanh0 (buffer 0)
  tanh1 writes in place over relu1 (buffer 0)
  relu2 writes in place over tanh1 (buffer 0)
  tanh2 writes in place over relu2 (buffer 0)
  1 buffer, 80 bytes planned (480 bytes with one buffer per output)`)
	if len(p.InPlace) != 5 {
		t.Errorf("in place: %v", p.InPlace)
	}
}

// lenet traces a LeNet-like network on a 4x1x28x28 batch and returns it
// with its second-to-last activation as a second output.
func lenet() *graph.Graph {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("data", ops.Shape{4, 1, 28, 28}, ops.Float32)
	param := func(name string) *graph.Symbol { return graph.Var(name, nil, ops.Unknown) }
	h := F.Relu(F.Convolution(x, param("conv0_weight"), param("conv0_bias"), []int{5, 5}, 6))
	h = F.Pooling(h, []int{2, 2}, "max", ops.Attr{Name: "stride", Value: []int{2, 2}})
	h = F.Relu(F.Convolution(h, param("conv1_weight"), param("conv1_bias"), []int{5, 5}, 16))
	h = F.Pooling(h, []int{2, 2}, "max", ops.Attr{Name: "stride", Value: []int{2, 2}})
	h = F.Relu(F.FullyConnected(h, param("fc0_weight"), param("fc0_bias"), 120))
	feat := F.Relu(F.FullyConnected(h, param("fc1_weight"), param("fc1_bias"), 84))
	y := F.FullyConnected(feat, param("fc2_weight"), param("fc2_bias"), 10)
	return graph.NewGraph(outputs(y, feat))
}

func TestPlanMemoryLeNet(t *testing.T) {
	g := lenet()
	p, _, err := graph.PlanMemory(g)
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, "lenet", g, p)
	if p.PlannedBytes >= p.NaiveBytes {
		t.Errorf("planned %d bytes, naive %d", p.PlannedBytes, p.NaiveBytes)
	}
	a, b := p.EntryBuffer[g.Outputs[0]], p.EntryBuffer[g.Outputs[1]]
	if a == b {
		t.Errorf("the two outputs share buffer %d", a)
	}
	// checkPlan has checked that no entry written later shares an output's buffer.
	checkText(t, "plan", p.String(), `memory plan: 2 buffers, 69120 bytes planned, 167968 bytes with one buffer per output
buffer  dtype    elems  bytes  entries
0       float32  13824  55296  convolution0, relu0*, convolution1, relu1*, fullyconnected0, relu2*, fullyconnected2
1       float32  3456   13824  pooling0, pooling1, fullyconnected1, relu3*
`)
}

func TestPlanMemoryNeedsKnownShapes(t *testing.T) {
	tr := graph.NewTracer()
	x := graph.Var("data", ops.Shape{0, 784}, ops.Float32)
	y := tr.F().Relu(x)
	_, _, err := graph.PlanMemory(y.(*graph.Symbol).Graph())
	if err == nil || !strings.Contains(err.Error(), "node relu0 (relu) has output ?x784 float32") {
		t.Errorf("got %v", err)
	}
}
