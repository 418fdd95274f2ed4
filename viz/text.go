package viz

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hybridgo/hybridgo/graph"
)

// DrawText lays out g and draws it for a terminal of width columns.
func DrawText(g *graph.Graph, o Options, width int) (string, error) {
	l, err := LayoutGraph(g, o)
	if err != nil {
		return "", err
	}
	return Text(l, width), nil
}

// Text draws a layout with Unicode box drawing, one row of boxes ("name
// Op" over the shape) per layer, joined by │, ─ and ▼ connectors, in at
// most width columns. Parameters and constants are left out (annotate
// parameter counts to see them). When a layer does not fit, the whole
// graph is printed instead as a listing: one line per node with its
// inputs indented below it,
//
//	conv0_fwd Convolution 16x6x24x24
//	├─ data
//	└─ conv0_weight 6x1x5x5
//
// and lines that are still too long are cut with "…".
func Text(l *Layout, width int) string {
	if s, ok := layeredText(l, width); ok {
		return s
	}
	return listingText(l, width)
}

func hidden(n *Node) bool { return n.Kind == "param" || n.Kind == "const" }

// textItem is a box or the lane of an edge passing a row.
type textItem struct {
	node   int     // -1 for a lane
	edge   int     // the lane's edge
	px     float64 // pixel x of the center, for ordering
	col, w int     // first column and width
}

func (it *textItem) center() int { return it.col + it.w/2 }

func layeredText(l *Layout, width int) (string, bool) {
	L := 0
	for _, n := range l.Nodes {
		if !hidden(&n) {
			L = max(L, n.Layer+1)
		}
	}
	rows := make([][]*textItem, L)
	boxOf := map[int]*textItem{}
	for i := range l.Nodes {
		n := &l.Nodes[i]
		if hidden(n) {
			continue
		}
		// Odd widths and an odd total keep the centers of single boxes
		// on one column, so chains draw straight.
		w := max(utf8.RuneCountInString(n.Label), utf8.RuneCountInString(n.Detail)) + 4
		w |= 1
		it := &textItem{node: i, px: n.X + n.W/2, w: w}
		rows[n.Layer] = append(rows[n.Layer], it)
		boxOf[i] = it
	}
	// Segments between consecutive rows: [from item, to item].
	var segs [][2]*textItem
	for ei, e := range l.Edges {
		a, b := boxOf[e.From], boxOf[e.To]
		if a == nil || b == nil {
			continue
		}
		prev := a
		for k := l.Nodes[e.From].Layer + 1; k < l.Nodes[e.To].Layer; k++ {
			lane := &textItem{node: -1, edge: ei, px: laneX(l, e, k), w: 1}
			rows[k] = append(rows[k], lane)
			segs = append(segs, [2]*textItem{prev, lane})
			prev = lane
		}
		segs = append(segs, [2]*textItem{prev, b})
	}
	total := 0
	for _, row := range rows {
		sort.SliceStable(row, func(i, j int) bool { return row[i].px < row[j].px })
		c := 0
		for i, it := range row {
			if i > 0 {
				c += 2
			}
			it.col = c
			c += it.w
		}
		total = max(total, c)
	}
	total |= 1
	if total > width {
		return "", false
	}
	for _, row := range rows {
		if len(row) == 0 {
			continue
		}
		last := row[len(row)-1]
		shift := (total - (last.col + last.w)) / 2
		for _, it := range row {
			it.col += shift
		}
	}
	var out []string
	for k, row := range rows {
		lines := make([][]rune, 4)
		for i := range lines {
			lines[i] = []rune(strings.Repeat(" ", total))
		}
		for _, it := range row {
			if it.node < 0 {
				for i := range lines {
					lines[i][it.col] = '│'
				}
				continue
			}
			n := &l.Nodes[it.node]
			put(lines[0], it.col, "┌"+strings.Repeat("─", it.w-2)+"┐")
			put(lines[1], it.col, "│ "+pad(n.Label, it.w-4)+" │")
			put(lines[2], it.col, "│ "+pad(n.Detail, it.w-4)+" │")
			put(lines[3], it.col, "└"+strings.Repeat("─", it.w-2)+"┘")
		}
		for _, ln := range lines {
			out = append(out, strings.TrimRight(string(ln), " "))
		}
		if k+1 < L {
			out = append(out, connectors(segs, k, row, total)...)
		}
	}
	return strings.Join(out, "\n") + "\n", true
}

// connectors draws the lines joining a row to the next: three, or two
// when every connection runs straight down.
func connectors(segs [][2]*textItem, k int, row []*textItem, total int) []string {
	inRow := map[*textItem]bool{}
	for _, it := range row {
		inRow[it] = true
	}
	const up, down, left, right = 1, 2, 4, 8
	bits := make([]int, total)
	top := []rune(strings.Repeat(" ", total))
	bottom := []rune(strings.Repeat(" ", total))
	for _, s := range segs {
		if !inRow[s[0]] {
			continue
		}
		a, b := s[0].center(), s[1].center()
		top[a] = '│'
		if s[1].node < 0 {
			bottom[b] = '│'
		} else {
			bottom[b] = '▼'
		}
		bits[a] |= up
		bits[b] |= down
		lo, hi := min(a, b), max(a, b)
		for c := lo; c < hi; c++ {
			bits[c] |= right
			bits[c+1] |= left
		}
	}
	straight := true
	for c, v := range bits {
		if v&(left|right) != 0 || v != 0 && top[c] == ' ' {
			straight = false
		}
	}
	if straight {
		return []string{strings.TrimRight(string(top), " "), strings.TrimRight(string(bottom), " ")}
	}
	mid := []rune(strings.Repeat(" ", total))
	for c, v := range bits {
		mid[c] = boxRune(v)
	}
	return []string{strings.TrimRight(string(top), " "), strings.TrimRight(string(mid), " "), strings.TrimRight(string(bottom), " ")}
}

// boxRune is the box-drawing character joining the given sides
// (1 up, 2 down, 4 left, 8 right).
func boxRune(v int) rune {
	return []rune(" │││─┘┐┤─└┌├─┴┬┼")[v]
}

// laneX is the pixel x where edge e passes layer k.
func laneX(l *Layout, e Edge, k int) float64 {
	if k < len(l.layerTop) {
		top, bot := l.layerTop[k], l.layerTop[k]+l.layerH[k]
		for _, p := range e.Points {
			if p[1] >= top && p[1] <= bot {
				return p[0]
			}
		}
	}
	a, b := e.Points[0], e.Points[len(e.Points)-1]
	la, lb := float64(l.Nodes[e.From].Layer), float64(l.Nodes[e.To].Layer)
	return a[0] + (b[0]-a[0])*(float64(k)-la)/(lb-la)
}

func put(line []rune, col int, s string) {
	for _, r := range s {
		if col < len(line) {
			line[col] = r
		}
		col++
	}
}

func pad(s string, w int) string {
	n := utf8.RuneCountInString(s)
	if n >= w {
		return s
	}
	left := (w - n) / 2
	return strings.Repeat(" ", left) + s + strings.Repeat(" ", w-n-left)
}

// refName is how a listing names a node it reads: its label without the op.
func refName(n *Node) string {
	if n.Op != "" && n.Op != "block" {
		return strings.TrimSuffix(n.Label, " "+n.Op)
	}
	if hidden(n) {
		return n.Label + " " + n.Detail
	}
	return n.Label
}

func listingText(l *Layout, width int) string {
	ins := make([][]int, len(l.Nodes))
	for _, e := range l.Edges {
		ins[e.To] = append(ins[e.To], e.From)
	}
	var b strings.Builder
	line := func(s string) {
		if width > 1 && utf8.RuneCountInString(s) > width {
			s = string([]rune(s)[:width-1]) + "…"
		}
		b.WriteString(s + "\n")
	}
	for i := range l.Nodes {
		n := &l.Nodes[i]
		if hidden(n) {
			continue
		}
		line(n.Label + " " + n.Detail)
		for j, f := range ins[i] {
			branch := "├─ "
			if j == len(ins[i])-1 {
				branch = "└─ "
			}
			line(branch + refName(&l.Nodes[f]))
		}
	}
	return b.String()
}
