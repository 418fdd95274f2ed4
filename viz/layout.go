package viz

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// Options choose what a drawing shows.
type Options struct {
	Collapse      []string          // block prefixes whose ops are drawn as one node ("net0_conv0_")
	CollapseDepth int               // collapse every block deeper than this many prefix levels (0: none)
	ShowParams    bool              // draw parameter/constant variables as nodes beside their consumer (default in DefaultOptions: true)
	ParamCounts   bool              // annotate ops with their parameter counts
	FLOPs         bool              // annotate ops with FLOPs (estimate: FullyConnected/dot/Convolution/… 2*MACs, element-wise 1 per element)
	Plan          *graph.MemoryPlan // annotate op outputs with their buffer ids
}

// DefaultOptions shows parameters and collapses nothing.
func DefaultOptions() Options { return Options{ShowParams: true} }

// Node is one box of a drawing.
type Node struct {
	ID     int
	Name   string            // node name ("net0_conv0_fwd"), or the block prefix of a collapsed group
	Op     string            // MXNet op name, "" for variables, "block" for a collapsed group
	Kind   string            // the op's kind (ops.Op.Kind), or "input", "param", "const" for variables, "block"
	Label  string            // "conv0_fwd Convolution"
	Detail string            // "16x6x24x24" (+ " float64" when not float32), + annotations
	Attrs  map[string]string // all attributes, for tooltips
	Shape  ops.Shape
	DType  ops.DType
	Layer  int
	X, Y   float64 // top-left corner, in pixels
	W, H   float64
	Params int   // parameter count (ParamCounts)
	FLOPs  int64 // (FLOPs)
	Buffer int   // memory-plan buffer id, -1 when none
}

// Edge goes from an output of From to an input of To.
type Edge struct {
	From, To int
	// Points is a polyline from the bottom center of From to the top
	// center of To (at least 2 points), bending through the gaps between
	// boxes on layers it passes. An edge from a parameter drawn beside its
	// consumer runs from the parameter's right side to the consumer's left.
	Points [][2]float64
}

// Layout is a drawing: boxes and edges in pixel coordinates, all inside
// (0, Width) x (0, Height) with a margin.
type Layout struct {
	Nodes         []Node
	Edges         []Edge
	Width, Height float64

	layerTop, layerH []float64 // the band of each layer
}

// Sizes, in pixels. Text widths are estimated from rune counts.
const (
	margin      = 20.0
	opH         = 40.0 // an op box: label and detail lines
	paramH      = 18.0 // a parameter box: one line
	paramVGap   = 4.0
	paramHGap   = 22.0 // between a parameter column and its consumer
	nodeGap     = 28.0 // between neighbours in a layer
	layerGap    = 40.0 // between layers
	dummyW      = 10.0 // the lane of an edge passing a layer
	labelCharW  = 7.0  // 12px sans-serif
	detailCharW = 6.1  // 11px
	paramCharW  = 6.0  // 10px
	boxPad      = 16.0 // horizontal padding inside a box
	minBoxW     = 60.0
)

// boxWidth estimates the width of an op box for its two text lines.
func boxWidth(label, detail string) float64 {
	w := math.Max(float64(utf8.RuneCountInString(label))*labelCharW, float64(utf8.RuneCountInString(detail))*detailCharW) + boxPad
	return math.Ceil(math.Max(w, minBoxW))
}

// paramWidth estimates the width of a parameter box ("name detail").
func paramWidth(label, detail string) float64 {
	return math.Ceil(float64(utf8.RuneCountInString(label)+1+utf8.RuneCountInString(detail))*paramCharW + boxPad - 4)
}

// LayoutGraph lays out a graph top to bottom (inputs at the top): ops on
// layers by longest path from the inputs, ordered within layers by a few
// barycenter sweeps, parameters and constants beside (left of) the op
// that reads them. The result depends only on the graph and the options.
func LayoutGraph(g *graph.Graph, o Options) (*Layout, error) {
	if g == nil {
		return nil, errors.New("viz: nil graph")
	}
	b := newBuilder(g, o)
	b.group()
	b.items()
	b.annotate()
	b.layer()
	b.order()
	b.place()
	b.route()
	return b.l, nil
}

// builder holds the state of one layout.
type builder struct {
	g     *graph.Graph
	o     Options
	l     *Layout
	kind  map[*graph.Node]string // variables' kinds
	strip string                 // prefix common to every name, left out of labels

	groupOf map[*graph.Node]string // collapsed group prefix, "" for none
	itemOf  map[*graph.Node]int    // node -> drawn node id, -1 when hidden
	members [][]*graph.Node        // per drawn node, the graph nodes it stands for
	succ    [][]int                // drawn-edge adjacency
	pred    [][]int

	beside  []int   // per node, the consumer it is drawn beside, or -1
	sideOf  [][]int // per node, the parameters drawn beside it
	slots   [][]int // per layer, slot ids in order; slot < n is a node, else a dummy
	dummies []dummy // slot n+i
	chains  [][]int // per edge, the dummy slots it passes
	slotX   []float64
	ups     [][]int // per slot, the slots above it joined by an edge segment
	downs   [][]int
}

type dummy struct{ layer, edge int }

func newBuilder(g *graph.Graph, o Options) *builder {
	b := &builder{g: g, o: o, l: &Layout{}, kind: map[*graph.Node]string{}, groupOf: map[*graph.Node]string{}, itemOf: map[*graph.Node]int{}}
	aux := map[*graph.Node]bool{}
	for _, n := range g.AuxStates() {
		aux[n] = true
	}
	// A variable read in a "weight"-like slot, or named like one, is a
	// parameter; one with a value is a constant; the rest are inputs.
	paramSlot := map[*graph.Node]bool{}
	dataSlot := map[*graph.Node]bool{}
	for _, n := range g.Nodes {
		if n.IsVar() {
			continue
		}
		names := n.Op.InputNames(n.Attrs)
		for i, in := range n.Inputs {
			if !in.Node.IsVar() {
				continue
			}
			slot := ""
			if i < len(names) {
				slot = names[i]
			}
			if isParamName(slot) {
				paramSlot[in.Node] = true
			} else {
				dataSlot[in.Node] = true
			}
		}
	}
	for _, n := range g.Nodes {
		if !n.IsVar() {
			continue
		}
		_, annotated := n.Extra["__init__"]
		switch {
		case n.Value != nil:
			b.kind[n] = "const"
		case aux[n], annotated, isParamName(n.Name), paramSlot[n] && !dataSlot[n]:
			b.kind[n] = "param"
		default:
			b.kind[n] = "input"
		}
	}
	b.strip = commonPrefix(g)
	return b
}

// isParamName reports whether a name ends like a Gluon parameter's.
func isParamName(s string) bool {
	for _, suf := range []string{"weight", "bias", "gamma", "beta", "running_mean", "running_var", "moving_mean", "moving_var", "alpha"} {
		if s == suf || strings.HasSuffix(s, "_"+suf) {
			return true
		}
	}
	return false
}

// levels splits a name into its block prefix levels: the leading
// "_"-separated segments that end in a digit, never the last segment.
// "net0_stage1_conv0_fwd" has levels net0, stage1, conv0.
func levels(name string) []string {
	segs := strings.Split(name, "_")
	var out []string
	for _, s := range segs[:len(segs)-1] {
		if s == "" || s[len(s)-1] < '0' || s[len(s)-1] > '9' {
			break
		}
		out = append(out, s)
	}
	return out
}

// commonPrefix returns the block prefix ("hybridsequential0_") that every
// non-input node name starts with, or "" when there is none or when
// stripping it would leave a name empty.
func commonPrefix(g *graph.Graph) string {
	var common []string
	first := true
	for _, n := range g.Nodes {
		if n.IsVar() && !isParamName(n.Name) && n.Value == nil {
			continue
		}
		lv := levels(n.Name)
		if len(lv) == 0 {
			continue // "fused0": a name of no block says nothing
		}
		if first {
			common, first = lv, false
			continue
		}
		k := 0
		for k < len(common) && k < len(lv) && common[k] == lv[k] {
			k++
		}
		common = common[:k]
	}
	if len(common) == 0 {
		return ""
	}
	return strings.Join(common, "_") + "_"
}

func (b *builder) short(name string) string {
	if s := strings.TrimPrefix(name, b.strip); s != "" {
		return s
	}
	return name
}

// group assigns graph nodes to collapsed groups: the longest prefix in
// Collapse a name starts with, else (with CollapseDepth d) its first d+1
// levels when it has more than d. A depth group of fewer than two ops is
// left expanded, and so is any group whose merging would make the drawing
// cyclic (data leaving the group and coming back).
func (b *builder) group() {
	if len(b.o.Collapse) == 0 && b.o.CollapseDepth <= 0 {
		return
	}
	cand := map[*graph.Node]string{}
	explicit := map[string]bool{}
	opsIn := map[string]int{}
	var order []string
	for _, n := range b.g.Nodes {
		if n.IsVar() && b.kind[n] == "input" {
			continue
		}
		best := ""
		for _, p := range b.o.Collapse {
			if p != "" && strings.HasPrefix(n.Name, p) && len(p) > len(best) {
				best = p
			}
		}
		if best != "" {
			explicit[best] = true
		} else if d := b.o.CollapseDepth; d > 0 {
			if lv := levels(n.Name); len(lv) > d {
				best = strings.Join(lv[:d+1], "_") + "_"
			}
		}
		if best == "" {
			continue
		}
		if _, seen := opsIn[best]; !seen {
			order = append(order, best)
			opsIn[best] = 0
		}
		cand[n] = best
		if !n.IsVar() {
			opsIn[best]++
		}
	}
	for _, p := range order {
		if opsIn[p] == 0 || !explicit[p] && opsIn[p] < 2 {
			continue
		}
		for n, q := range cand {
			if q == p {
				b.groupOf[n] = p
			}
		}
		if b.cyclic() {
			for n, q := range b.groupOf {
				if q == p {
					delete(b.groupOf, n)
				}
			}
		}
	}
}

// cyclic reports whether the current grouping makes the group graph
// cyclic.
func (b *builder) cyclic() bool {
	id := map[string]int{}
	key := func(n *graph.Node) int {
		k := n.Name
		if p := b.groupOf[n]; p != "" {
			k = "\x00" + p
		}
		if v, ok := id[k]; ok {
			return v
		}
		id[k] = len(id)
		return id[k]
	}
	var edges [][2]int
	for _, n := range b.g.Nodes {
		t := key(n)
		for _, in := range n.Inputs {
			if s := key(in.Node); s != t {
				edges = append(edges, [2]int{s, t})
			}
		}
	}
	indeg := make([]int, len(id))
	adj := make([][]int, len(id))
	for _, e := range edges {
		adj[e[0]] = append(adj[e[0]], e[1])
		indeg[e[1]]++
	}
	var queue []int
	for v, d := range indeg {
		if d == 0 {
			queue = append(queue, v)
		}
	}
	seen := 0
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		seen++
		for _, w := range adj[v] {
			if indeg[w]--; indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	return seen != len(id)
}

// items makes the drawn nodes and edges.
func (b *builder) items() {
	groupItem := map[string]int{}
	for _, n := range b.g.Nodes {
		b.itemOf[n] = -1
		if p := b.groupOf[n]; p != "" {
			id, ok := groupItem[p]
			if !ok {
				id = len(b.l.Nodes)
				groupItem[p] = id
				b.l.Nodes = append(b.l.Nodes, Node{ID: id, Name: p, Op: "block", Kind: "block", Buffer: -1})
				b.members = append(b.members, nil)
			}
			b.itemOf[n] = id
			b.members[id] = append(b.members[id], n)
			continue
		}
		kind := ""
		op := ""
		if n.IsVar() {
			kind = b.kind[n]
			if kind != "input" && !b.o.ShowParams {
				continue
			}
		} else {
			op = n.Op.Name()
			kind = n.Op.Kind()
		}
		id := len(b.l.Nodes)
		b.itemOf[n] = id
		b.l.Nodes = append(b.l.Nodes, Node{ID: id, Name: n.Name, Op: op, Kind: kind, Buffer: -1})
		b.members = append(b.members, []*graph.Node{n})
	}
	nn := len(b.l.Nodes)
	b.succ, b.pred = make([][]int, nn), make([][]int, nn)
	seen := map[[2]int]bool{}
	for _, n := range b.g.Nodes {
		t := b.itemOf[n]
		if t < 0 {
			continue
		}
		for _, in := range n.Inputs {
			s := b.itemOf[in.Node]
			if s < 0 || s == t || seen[[2]int{s, t}] {
				continue
			}
			seen[[2]int{s, t}] = true
			b.l.Edges = append(b.l.Edges, Edge{From: s, To: t})
			b.succ[s] = append(b.succ[s], t)
			b.pred[t] = append(b.pred[t], s)
		}
	}
}

// annotate fills in labels, details, attributes and annotations.
func (b *builder) annotate() {
	for id := range b.l.Nodes {
		nd := &b.l.Nodes[id]
		ms := b.members[id]
		var ann []string
		if nd.Kind == "block" {
			opsN := 0
			params := map[*graph.Node]bool{}
			var out *graph.Node
			var names []string
			for _, m := range ms {
				names = append(names, m.Name)
				if m.IsVar() {
					if b.kind[m] == "param" {
						params[m] = true
					}
					continue
				}
				opsN++
				nd.FLOPs += flops(m)
				out = m
			}
			for p := range params {
				nd.Params += p.Shapes[0].Size()
			}
			nd.Label = strings.TrimSuffix(b.short(nd.Name), "_") + " block"
			nd.Attrs = map[string]string{"ops": strconv.Itoa(opsN), "nodes": strings.Join(names, ",")}
			detail := fmt.Sprintf("%d ops", opsN)
			if out != nil {
				nd.Shape, nd.DType = out.Shapes[0], out.DTypes[0]
				detail = outputsString(out) + " · " + detail
			}
			nd.Detail = detail
		} else {
			n := ms[0]
			nd.Shape, nd.DType = n.Shapes[0], n.DTypes[0]
			nd.Attrs = map[string]string{}
			for k, v := range n.Extra {
				nd.Attrs[k] = v
			}
			if n.IsVar() {
				nd.Label = b.short(n.Name)
				if nd.Kind == "input" {
					nd.Label = n.Name
				}
				nd.Attrs["kind"] = nd.Kind
			} else {
				for k, v := range n.Op.FormatAttrs(n.Attrs) {
					nd.Attrs[k] = v
				}
				nd.Label = b.short(n.Name) + " " + n.Op.Name()
				for _, in := range n.Inputs {
					if b.kind[in.Node] == "param" {
						nd.Params += in.Node.Shapes[0].Size()
					}
				}
				nd.FLOPs = flops(n)
				if b.o.Plan != nil {
					if buf, ok := b.o.Plan.EntryBuffer[graph.Entry{Node: n, Index: 0}]; ok {
						nd.Buffer = buf
					}
				}
			}
			nd.Detail = outputsString(n)
		}
		if b.o.ParamCounts && nd.Params > 0 {
			ann = append(ann, countString(int64(nd.Params))+" params")
		}
		if b.o.FLOPs && nd.FLOPs > 0 {
			ann = append(ann, countString(nd.FLOPs)+" FLOPs")
		}
		if nd.Buffer >= 0 {
			ann = append(ann, "buf "+strconv.Itoa(nd.Buffer))
		}
		if len(ann) > 0 {
			nd.Detail += " · " + strings.Join(ann, " · ")
		}
	}
}

// outputsString prints a node's visible output shapes, "?" where unknown,
// with the dtype when it is not float32.
func outputsString(n *graph.Node) string {
	k := len(n.Shapes)
	if !n.IsVar() {
		if v := n.Op.NumVisibleOutputs(n.Attrs); v > 0 && v < k {
			k = v
		}
	}
	parts := make([]string, 0, k)
	for i := 0; i < k; i++ {
		s := "?"
		if n.Shapes[i] != nil {
			s = n.Shapes[i].String()
		}
		if d := n.DTypes[i]; d != ops.Float32 && d != ops.Unknown {
			s += " " + d.String()
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// countString prints a count with a k, M or G suffix ("61.7k").
func countString(v int64) string {
	f := float64(v)
	switch {
	case f >= 1e9:
		return strconv.FormatFloat(f/1e9, 'f', 1, 64) + "G"
	case f >= 1e6:
		return strconv.FormatFloat(f/1e6, 'f', 1, 64) + "M"
	case f >= 1e3:
		return strconv.FormatFloat(f/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatInt(v, 10)
}

// flops estimates the floating-point operations of one node: 2 per
// multiply-accumulate for products and convolutions, one per output
// element for element-wise ops, one per input element for reductions.
// Unknown shapes give 0.
func flops(n *graph.Node) int64 {
	if n.IsVar() || len(n.Shapes) == 0 || n.Shapes[0] == nil || !n.Shapes[0].Known() {
		return 0
	}
	out := int64(n.Shapes[0].Size())
	in := func(i int) ops.Shape {
		if i < len(n.Inputs) {
			if s := n.Inputs[i].Shape(); s != nil && s.Known() {
				return s
			}
		}
		return nil
	}
	prodFrom := func(s ops.Shape, from int) int64 {
		p := int64(1)
		for _, d := range s[min(from, len(s)):] {
			p *= int64(d)
		}
		return p
	}
	switch op := strings.TrimPrefix(n.Op.Name(), "_backward_"); op {
	case "Convolution":
		if w := in(1); w != nil {
			return 2*out*prodFrom(w, 1) + out
		}
	case "Deconvolution":
		if w, x := in(1), in(0); w != nil && x != nil {
			return 2 * int64(x.Size()) * prodFrom(w, 1)
		}
	case "FullyConnected":
		if w := in(1); len(w) == 2 {
			return 2*out*int64(w[1]) + out
		}
	case "dot", "batch_dot":
		if a, c := in(0), in(1); a != nil && c != nil && out > 0 {
			k2 := float64(a.Size()) * float64(c.Size()) / float64(out)
			if op == "batch_dot" && len(n.Shapes[0]) > 0 && n.Shapes[0][0] > 0 {
				k2 /= float64(n.Shapes[0][0])
			}
			return 2 * out * int64(math.Round(math.Sqrt(k2)))
		}
	case "Pooling":
		if x := in(0); x != nil {
			return int64(x.Size())
		}
	case "BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm":
		return 4 * out
	case "softmax", "log_softmax", "SoftmaxOutput", "softmax_cross_entropy":
		if x := in(0); x != nil {
			return 3 * int64(x.Size())
		}
	}
	switch n.Op.Kind() {
	case "shape", "other":
		return 0
	case "reduce":
		if x := in(0); x != nil {
			return int64(x.Size())
		}
	case "fused":
		return out * int64(strings.Count(n.Op.FormatAttrs(n.Attrs)["nodes"], ",")+1)
	}
	return out
}
