package viz

import (
	"math"
	"sort"
	"strings"
)

// layer assigns layers: parameters and constants read by exactly one
// node go beside it; every other node sits one layer below its lowest
// input (longest path from the top). Sources that are not inputs (shared
// parameters, ops without inputs) move down to just above their first
// reader.
func (b *builder) layer() {
	nodes := b.l.Nodes
	n := len(nodes)
	b.beside = make([]int, n)
	b.sideOf = make([][]int, n)
	for i := range nodes {
		b.beside[i] = -1
		k := nodes[i].Kind
		if (k == "param" || k == "const") && len(b.pred[i]) == 0 && len(b.succ[i]) == 1 {
			c := b.succ[i][0]
			if ck := nodes[c].Kind; ck != "param" && ck != "const" {
				b.beside[i] = c
				b.sideOf[c] = append(b.sideOf[c], i)
				// "conv0_weight" beside "conv0_fwd" reads as "weight".
				if lv := levels(nodes[c].Name); nodes[c].Op != "block" && len(lv) > 0 {
					p := strings.Join(lv, "_") + "_"
					if s := strings.TrimPrefix(nodes[i].Name, p); s != nodes[i].Name && s != "" {
						nodes[i].Label = s
					}
				}
			}
		}
	}
	// Kahn's algorithm, smallest id first, over the nodes not beside.
	indeg := make([]int, n)
	for i := range nodes {
		for _, p := range b.pred[i] {
			if b.beside[p] < 0 {
				indeg[i]++
			}
		}
	}
	var ready intHeap
	for i := range nodes {
		if b.beside[i] < 0 && indeg[i] == 0 {
			ready.push(i)
		}
	}
	var topo []int
	layer := make([]int, n)
	for ready.len() > 0 {
		v := ready.pop()
		topo = append(topo, v)
		for _, w := range b.succ[v] {
			if layer[v]+1 > layer[w] {
				layer[w] = layer[v] + 1
			}
			if indeg[w]--; indeg[w] == 0 {
				ready.push(w)
			}
		}
	}
	for i := len(topo) - 1; i >= 0; i-- {
		v := topo[i]
		if len(b.pred[v]) > 0 || nodes[v].Kind == "input" || len(b.succ[v]) == 0 {
			continue
		}
		lo := math.MaxInt
		for _, w := range b.succ[v] {
			lo = min(lo, layer[w])
		}
		layer[v] = lo - 1
	}
	for i := range nodes {
		if c := b.beside[i]; c >= 0 {
			layer[i] = layer[c]
		}
	}
	for i := range nodes {
		nodes[i].Layer = layer[i]
	}
}

// order makes the slots of every layer (nodes not beside another, and a
// dummy per layer a long edge passes) and orders them by barycenter
// sweeps, keeping the order with the fewest crossings.
func (b *builder) order() {
	nodes := b.l.Nodes
	L := 0
	for i := range nodes {
		L = max(L, nodes[i].Layer+1)
	}
	b.slots = make([][]int, L)
	for i := range nodes {
		if b.beside[i] < 0 {
			b.slots[nodes[i].Layer] = append(b.slots[nodes[i].Layer], i)
		}
	}
	n := len(nodes)
	b.chains = make([][]int, len(b.l.Edges))
	var segs [][2]int
	for ei, e := range b.l.Edges {
		if b.beside[e.From] >= 0 {
			continue
		}
		prev := e.From
		for k := nodes[e.From].Layer + 1; k < nodes[e.To].Layer; k++ {
			d := n + len(b.dummies)
			b.dummies = append(b.dummies, dummy{layer: k, edge: ei})
			b.slots[k] = append(b.slots[k], d)
			b.chains[ei] = append(b.chains[ei], d)
			segs = append(segs, [2]int{prev, d})
			prev = d
		}
		segs = append(segs, [2]int{prev, e.To})
	}
	total := n + len(b.dummies)
	up, down := make([][]int, total), make([][]int, total)
	for _, s := range segs {
		down[s[0]] = append(down[s[0]], s[1])
		up[s[1]] = append(up[s[1]], s[0])
	}
	pos := make([]float64, total)
	setPos := func() {
		for _, row := range b.slots {
			for i, s := range row {
				pos[s] = float64(i)
			}
		}
	}
	setPos()
	crossings := func() int {
		c := 0
		for k := 0; k+1 < L; k++ {
			var pairs [][2]int
			for _, s := range b.slots[k] {
				for _, t := range down[s] {
					pairs = append(pairs, [2]int{int(pos[s]), int(pos[t])})
				}
			}
			c += inversions(pairs, len(b.slots[k+1]))
		}
		return c
	}
	snapshot := func() [][]int {
		c := make([][]int, L)
		for k, row := range b.slots {
			c[k] = append([]int(nil), row...)
		}
		return c
	}
	best, bestC := snapshot(), crossings()
	sweep := func(k int, nbr [][]int) {
		row := b.slots[k]
		key := make(map[int]float64, len(row))
		for _, s := range row {
			key[s] = pos[s]
			if len(nbr[s]) > 0 {
				sum := 0.0
				for _, t := range nbr[s] {
					sum += pos[t]
				}
				// Scaled to this row's positions, so that nodes without
				// neighbours keep their place among the others.
				key[s] = sum / float64(len(nbr[s]))
			}
		}
		sort.SliceStable(row, func(i, j int) bool { return key[row[i]] < key[row[j]] })
		for i, s := range row {
			pos[s] = float64(i)
		}
	}
	for it := 0; it < 8 && bestC > 0; it++ {
		if it%2 == 0 {
			for k := 1; k < L; k++ {
				sweep(k, up)
			}
		} else {
			for k := L - 2; k >= 0; k-- {
				sweep(k, down)
			}
		}
		if c := crossings(); c < bestC {
			best, bestC = snapshot(), c
		}
	}
	b.slots = best
	b.ups, b.downs = up, down
}

// inversions counts the crossing pairs among edges (u, v) between two
// rows: pairs with u1 < u2 and v1 > v2.
func inversions(pairs [][2]int, width int) int {
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i][0] != pairs[j][0] {
			return pairs[i][0] < pairs[j][0]
		}
		return pairs[i][1] < pairs[j][1]
	})
	tree := make([]int, width+1) // Fenwick tree over v
	c, seen := 0, 0
	for _, p := range pairs {
		// Count earlier pairs with v > p.v.
		le := 0
		for i := p[1] + 1; i > 0; i -= i & -i {
			le += tree[i]
		}
		c += seen - le
		for i := p[1] + 1; i <= width; i += i & -i {
			tree[i]++
		}
		seen++
	}
	return c
}

// place sizes the boxes and gives every slot an x (pulled toward the mean
// of its neighbours' anchors, rows kept in order and apart) and every
// layer a band of y.
func (b *builder) place() {
	nodes := b.l.Nodes
	n := len(nodes)
	for i := range nodes {
		nd := &nodes[i]
		if b.beside[i] >= 0 {
			nd.W, nd.H = paramWidth(nd.Label, nd.Detail), paramH
		} else {
			nd.W, nd.H = boxWidth(nd.Label, nd.Detail), opH
		}
	}
	total := n + len(b.dummies)
	width := make([]float64, total)  // slot width
	anchor := make([]float64, total) // anchor x from the slot's left
	height := make([]float64, total)
	colW := make([]float64, n)
	for s := 0; s < total; s++ {
		if s >= n {
			width[s], anchor[s] = dummyW, dummyW/2
			continue
		}
		nd := &nodes[s]
		if b.beside[s] >= 0 {
			continue
		}
		colH := 0.0
		for _, p := range b.sideOf[s] {
			colW[s] = math.Max(colW[s], nodes[p].W)
			colH += nodes[p].H + paramVGap
		}
		side := 0.0
		if colW[s] > 0 {
			side = colW[s] + paramHGap
			colH -= paramVGap
		}
		width[s] = side + nd.W
		anchor[s] = side + nd.W/2
		height[s] = math.Max(nd.H, colH)
	}
	L := len(b.slots)
	left := make([]float64, total)
	for _, row := range b.slots {
		x := 0.0
		for _, s := range row {
			left[s] = x
			x += width[s] + nodeGap
		}
	}
	align := func(k int, nbr [][]int) {
		row := b.slots[k]
		want := make([]float64, len(row))
		for i, s := range row {
			want[i] = left[s]
			if len(nbr[s]) > 0 {
				sum := 0.0
				for _, t := range nbr[s] {
					sum += left[t] + anchor[t]
				}
				want[i] = sum/float64(len(nbr[s])) - anchor[s]
			}
		}
		gaps := make([]float64, len(row))
		for i := 1; i < len(row); i++ {
			gaps[i] = width[row[i-1]] + nodeGap
		}
		for i, x := range orderedFit(want, gaps) {
			left[row[i]] = x
		}
	}
	for it := 0; it < 6; it++ {
		if it%2 == 0 {
			for k := 1; k < L; k++ {
				align(k, b.ups)
			}
		} else {
			for k := L - 2; k >= 0; k-- {
				align(k, b.downs)
			}
		}
	}
	minX := math.Inf(1)
	for _, row := range b.slots {
		for _, s := range row {
			minX = math.Min(minX, left[s])
		}
	}
	b.l.layerTop, b.l.layerH = make([]float64, L), make([]float64, L)
	y := margin
	for k, row := range b.slots {
		h := 0.0
		for _, s := range row {
			h = math.Max(h, height[s])
		}
		b.l.layerTop[k], b.l.layerH[k] = y, h
		y += h + layerGap
	}
	b.l.Height = y - layerGap + margin
	b.slotX = make([]float64, total)
	for k, row := range b.slots {
		for _, s := range row {
			x := left[s] - minX + margin
			b.slotX[s] = x + anchor[s]
			b.l.Width = math.Max(b.l.Width, x+width[s]+margin)
			if s >= n {
				continue
			}
			nd := &nodes[s]
			nd.X = x + width[s] - nd.W
			nd.Y = b.l.layerTop[k] + (b.l.layerH[k]-nd.H)/2
			colH := -paramVGap
			for _, p := range b.sideOf[s] {
				colH += nodes[p].H + paramVGap
			}
			py := nd.Y + nd.H/2 - colH/2
			for _, p := range b.sideOf[s] {
				pn := &nodes[p]
				pn.X = x + colW[s] - pn.W
				pn.Y = py
				py += pn.H + paramVGap
			}
		}
	}
	for i := range nodes {
		nodes[i].X, nodes[i].Y = round2(nodes[i].X), round2(nodes[i].Y)
	}
	b.l.Width, b.l.Height = math.Ceil(b.l.Width), math.Ceil(b.l.Height)
}

// orderedFit returns positions x, in order and at least gaps[i] after
// x[i-1], as close to want (least squares) as can be: isotonic regression
// by pooling adjacent violators.
func orderedFit(want, gaps []float64) []float64 {
	m := len(want)
	off := make([]float64, m)
	for i := 1; i < m; i++ {
		off[i] = off[i-1] + gaps[i]
	}
	type block struct {
		sum   float64
		count int
	}
	var blocks []block
	for i := 0; i < m; i++ {
		blocks = append(blocks, block{want[i] - off[i], 1})
		for len(blocks) > 1 {
			a, c := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/float64(a.count) <= c.sum/float64(c.count) {
				break
			}
			blocks = blocks[:len(blocks)-2]
			blocks = append(blocks, block{a.sum + c.sum, a.count + c.count})
		}
	}
	out := make([]float64, 0, m)
	for _, bl := range blocks {
		v := bl.sum / float64(bl.count)
		for j := 0; j < bl.count; j++ {
			out = append(out, v+off[len(out)])
		}
	}
	return out
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// route draws every edge: from a parameter's right side to its
// consumer's left, or from the bottom of the source down through the
// dummies' lanes to the top of the target, with vertical ends inside
// taller bands, so that edges cross layers only in their lanes and gaps.
func (b *builder) route() {
	nodes := b.l.Nodes
	// Ports: spread several edges along a box's bottom or top.
	outs, ins := map[int][]int{}, map[int][]int{}
	for ei, e := range b.l.Edges {
		if b.beside[e.From] < 0 {
			outs[e.From] = append(outs[e.From], ei)
			ins[e.To] = append(ins[e.To], ei)
		}
	}
	firstX := func(ei int) float64 { // x of the edge where it leaves its source
		if c := b.chains[ei]; len(c) > 0 {
			return b.slotX[c[0]]
		}
		t := nodes[b.l.Edges[ei].To]
		return t.X + t.W/2
	}
	lastX := func(ei int) float64 {
		if c := b.chains[ei]; len(c) > 0 {
			return b.slotX[c[len(c)-1]]
		}
		s := nodes[b.l.Edges[ei].From]
		return s.X + s.W/2
	}
	port := func(nd *Node, list []int, ei int, other func(int) float64) float64 {
		if len(list) == 1 {
			return nd.X + nd.W/2
		}
		sorted := append([]int(nil), list...)
		sort.SliceStable(sorted, func(i, j int) bool { return other(sorted[i]) < other(sorted[j]) })
		for i, e := range sorted {
			if e == ei {
				span := math.Min(nd.W*0.6, float64(len(list)-1)*14)
				return nd.X + nd.W/2 - span/2 + span*float64(i)/float64(len(list)-1)
			}
		}
		return nd.X + nd.W/2
	}
	for ei := range b.l.Edges {
		e := &b.l.Edges[ei]
		u, v := &nodes[e.From], &nodes[e.To]
		if b.beside[e.From] >= 0 {
			y := u.Y + u.H/2
			y = math.Min(math.Max(y, v.Y+5), v.Y+v.H-5)
			e.Points = [][2]float64{{round2(u.X + u.W), round2(u.Y + u.H/2)}, {round2(v.X), round2(y)}}
			continue
		}
		x0 := port(u, outs[e.From], ei, firstX)
		x1 := port(v, ins[e.To], ei, lastX)
		pts := [][2]float64{{x0, u.Y + u.H}}
		if bot := b.l.layerTop[u.Layer] + b.l.layerH[u.Layer]; bot > u.Y+u.H+0.5 {
			pts = append(pts, [2]float64{x0, bot})
		}
		for _, d := range b.chains[ei] {
			k := b.dummies[d-len(nodes)].layer
			x := b.slotX[d]
			pts = append(pts, [2]float64{x, b.l.layerTop[k]}, [2]float64{x, b.l.layerTop[k] + b.l.layerH[k]})
		}
		if top := b.l.layerTop[v.Layer]; top < v.Y-0.5 {
			pts = append(pts, [2]float64{x1, top})
		}
		pts = append(pts, [2]float64{x1, v.Y})
		for i := range pts {
			pts[i] = [2]float64{round2(pts[i][0]), round2(pts[i][1])}
		}
		e.Points = pts
	}
}

// intHeap is a min-heap of ints.
type intHeap []int

func (h *intHeap) len() int { return len(*h) }

func (h *intHeap) push(v int) {
	*h = append(*h, v)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *intHeap) pop() int {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(a) && a[l] < a[m] {
			m = l
		}
		if r < len(a) && a[r] < a[m] {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}
