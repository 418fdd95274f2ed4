package viz_test

import (
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/ops"
	"github.com/hybridgo/hybridgo/viz"
)

// checkLayout checks the geometry every layout must have: coordinates
// inside the drawing and away from 0, boxes apart, edges going down
// (parameters drawn beside their consumer go right, on its layer).
func checkLayout(t *testing.T, name string, l *viz.Layout) {
	t.Helper()
	for _, n := range l.Nodes {
		if n.X <= 0 || n.Y <= 0 || n.X+n.W >= l.Width || n.Y+n.H >= l.Height || n.W <= 0 || n.H <= 0 {
			t.Fatalf("%s: node %s at (%g,%g) size %gx%g is outside the %gx%g drawing", name, n.Name, n.X, n.Y, n.W, n.H, l.Width, l.Height)
		}
	}
	for i, a := range l.Nodes {
		for _, b := range l.Nodes[i+1:] {
			if a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H {
				t.Fatalf("%s: boxes %s and %s overlap", name, a.Name, b.Name)
			}
		}
	}
	for _, e := range l.Edges {
		from, to := l.Nodes[e.From], l.Nodes[e.To]
		if len(e.Points) < 2 {
			t.Fatalf("%s: edge %s -> %s has %d points", name, from.Name, to.Name, len(e.Points))
		}
		for _, p := range e.Points {
			if p[0] <= 0 || p[1] <= 0 || p[0] >= l.Width || p[1] >= l.Height {
				t.Fatalf("%s: edge %s -> %s leaves the drawing at %v", name, from.Name, to.Name, p)
			}
		}
		if (from.Kind == "param" || from.Kind == "const") && from.Layer == to.Layer {
			if from.X+from.W > to.X {
				t.Fatalf("%s: parameter %s is not left of %s", name, from.Name, to.Name)
			}
			continue
		}
		if to.Layer <= from.Layer {
			t.Fatalf("%s: edge %s (layer %d) -> %s (layer %d) does not go down", name, from.Name, from.Layer, to.Name, to.Layer)
		}
		for k := 1; k < len(e.Points); k++ {
			if e.Points[k][1] < e.Points[k-1][1] {
				t.Fatalf("%s: edge %s -> %s goes up: %v", name, from.Name, to.Name, e.Points)
			}
		}
		first, last := e.Points[0], e.Points[len(e.Points)-1]
		if first[1] != from.Y+from.H || last[1] != to.Y || first[0] < from.X || first[0] > from.X+from.W || last[0] < to.X || last[0] > to.X+to.W {
			t.Fatalf("%s: edge %s -> %s does not run from the bottom of one box to the top of the other: %v", name, from.Name, to.Name, e.Points)
		}
	}
}

func TestLayoutRandomDAGs(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 50; i++ {
		g := randomDAG(rng, 5+rng.Intn(56))
		l, err := viz.LayoutGraph(g, viz.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		checkLayout(t, "random", l)
		again, _ := viz.LayoutGraph(g, viz.DefaultOptions())
		if !reflect.DeepEqual(l, again) {
			t.Fatal("two layouts of one graph differ")
		}
	}
}

func TestLayoutLarge(t *testing.T) {
	g := randomDAG(rand.New(rand.NewSource(2)), 500)
	start := time.Now()
	l, err := viz.LayoutGraph(g, viz.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 800*time.Millisecond && !testing.Short() {
		t.Errorf("laying out %d nodes took %v", len(l.Nodes), d)
	}
	checkLayout(t, "500 nodes", l)
}

func TestLayoutLeNet(t *testing.T) {
	l, err := viz.LayoutGraph(lenet(t), viz.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, "lenet", l)
	if len(l.Nodes) != 22 || len(l.Edges) != 21 {
		t.Fatalf("lenet: %d nodes, %d edges; want 22 and 21", len(l.Nodes), len(l.Edges))
	}
	byName := map[string]viz.Node{}
	for _, n := range l.Nodes {
		byName[n.Name] = n
	}
	if n := byName["data"]; n.Layer != 0 || n.Kind != "input" || n.Detail != "16x1x28x28" {
		t.Errorf("data: %+v", n)
	}
	w, c := byName["conv0_weight"], byName["convolution0"]
	if w.Kind != "param" || w.Layer != c.Layer || w.X+w.W > c.X || c.Kind != "conv" || c.Label != "convolution0 Convolution" || c.Detail != "16x6x24x24" {
		t.Errorf("conv0_weight %+v beside convolution0 %+v", w, c)
	}
	// Without parameters, LeNet is a chain.
	o := viz.DefaultOptions()
	o.ShowParams = false
	l, _ = viz.LayoutGraph(lenet(t), o)
	for i, n := range l.Nodes {
		if n.Layer != i {
			t.Fatalf("chain: node %s on layer %d, want %d", n.Name, n.Layer, i)
		}
	}
}

func TestLayoutAnnotations(t *testing.T) {
	o := viz.DefaultOptions()
	o.ParamCounts, o.FLOPs = true, true
	l, _ := viz.LayoutGraph(lenet(t), o)
	for _, n := range l.Nodes {
		switch n.Name {
		case "convolution0":
			// 16x6x24x24 outputs, 25 MACs each, plus the bias.
			if n.Params != 156 || n.FLOPs != 2*16*6*24*24*25+16*6*24*24 || n.Detail != "16x6x24x24 · 156 params · 2.8M FLOPs" {
				t.Errorf("convolution0: %d params, %d FLOPs, %q", n.Params, n.FLOPs, n.Detail)
			}
		case "fullyconnected0":
			if n.Params != 120*256+120 || n.FLOPs != 2*16*120*256+16*120 {
				t.Errorf("fullyconnected0: %d params, %d FLOPs", n.Params, n.FLOPs)
			}
		case "dot0":
			if n.FLOPs != 2*16*10*84 {
				t.Errorf("dot0: %d FLOPs", n.FLOPs)
			}
		}
	}
}

func TestLayoutResNetCollapse(t *testing.T) {
	g := resnet(t)
	full, err := viz.LayoutGraph(g, viz.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, "resnet", full)
	ops := 0
	for _, n := range full.Nodes {
		if n.Op != "" {
			ops++
		}
	}
	if ops < 25 || len(full.Nodes) < 60 {
		t.Fatalf("resnet: %d ops of %d nodes", ops, len(full.Nodes))
	}
	o := viz.DefaultOptions()
	o.CollapseDepth = 1
	c, err := viz.LayoutGraph(g, o)
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, "resnet collapsed", c)
	var blocks []string
	for _, n := range c.Nodes {
		if n.Op == "block" {
			blocks = append(blocks, n.Label)
		}
	}
	if !reflect.DeepEqual(blocks, []string{"residualblock0 block", "residualblock1 block", "residualblock2 block"}) {
		t.Fatalf("blocks %q", blocks)
	}
	// The chain conv0 -> block0 -> block1 -> block2 -> pool0 survives.
	next := map[string]string{}
	for _, e := range c.Edges {
		next[c.Nodes[e.From].Label] = c.Nodes[e.To].Label
	}
	for a, b := range map[string]string{
		"conv0_fwd Convolution": "residualblock0 block", "residualblock0 block": "residualblock1 block",
		"residualblock1 block": "residualblock2 block", "residualblock2 block": "pool0_fwd Pooling",
	} {
		if next[a] != b {
			t.Errorf("edge from %s goes to %q, want %q", a, next[a], b)
		}
	}
	if len(c.Nodes) >= len(full.Nodes)/3 {
		t.Errorf("collapsed: %d nodes of %d", len(c.Nodes), len(full.Nodes))
	}
	// An explicit prefix collapses one block only.
	o = viz.DefaultOptions()
	o.Collapse = []string{"hybridsequential0_residualblock1_"}
	one, _ := viz.LayoutGraph(g, o)
	checkLayout(t, "resnet one block", one)
	n := 0
	for _, nd := range one.Nodes {
		if nd.Op == "block" {
			n++
			if nd.Name != "hybridsequential0_residualblock1_" || nd.Attrs["ops"] != "8" {
				t.Errorf("block %+v", nd)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d blocks, want 1", n)
	}
}

func TestOpKind(t *testing.T) {
	for op, want := range map[string]string{
		"Convolution": "conv", "FullyConnected": "dense", "Pooling": "pool", "BatchNorm": "norm",
		"relu": "activation", "broadcast_add": "elementwise", "_plus_scalar": "elementwise", "exp": "elementwise",
		"Reshape": "shape", "sum": "reduce", "softmax": "softmax", "SoftmaxOutput": "loss",
		"no_such_op": "other", "Dropout": "other", "": "input",
	} {
		if got := viz.OpKind(op); got != want {
			t.Errorf("OpKind(%q) = %q, want %q", op, got, want)
		}
	}
	// Every kind an op can have is drawn in a colour of its own.
	legend := viz.Kinds()
	for _, k := range ops.Kinds() {
		if !slices.Contains(legend, k) {
			t.Errorf("op kind %q has no colour in viz", k)
		}
	}
	seen := map[string]bool{}
	for _, k := range viz.Kinds() {
		c := viz.KindColor(k)
		if len(c) != 7 || c[0] != '#' || seen[c] {
			t.Errorf("KindColor(%q) = %q", k, c)
		}
		seen[c] = true
	}
}
