package graph

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/hybridgo/hybridgo/ops"
)

// Memory planning: which op outputs can share one buffer, given the order
// the nodes run in.

// PlannedBuffer is one buffer of a memory plan.
type PlannedBuffer struct {
	DType ops.DType
	Elems int // capacity in elements: the largest entry it holds
}

// MemoryPlan assigns every op-node output a buffer; entries whose lives
// do not overlap share one. Variables (inputs, parameters, constants) are
// not planned: their arrays belong to the caller.
type MemoryPlan struct {
	Buffers      []PlannedBuffer
	EntryBuffer  map[Entry]int  // op-node output -> buffer id
	InPlace      map[*Node]bool // nodes whose output 0 overwrites input 0
	PlannedBytes int64          // the buffers' total size
	NaiveBytes   int64          // one buffer per op-node output, for comparison

	order []Entry // planned entries, in the order they are written
}

// PlanMemory plans the buffers of g's op-node outputs by liveness, walking
// the nodes in order. An entry's buffer is released after the last node
// that reads it; graph outputs stay live to the end. A new entry takes a
// released buffer of its dtype that is large enough (the smallest such),
// else grows the largest released one of its dtype, else gets a new one.
// A node whose op may run in place writes output 0 into input 0's buffer
// when that input is an op-node output of the same dtype and size that
// nothing reads afterwards (and not a graph output). Every shape and dtype
// must be known: run InferShapes first.
func PlanMemory(g *Graph) (*MemoryPlan, PassReport, error) {
	return planMemory(g, true)
}

func planMemory(g *Graph, allowInPlace bool) (*MemoryPlan, PassReport, error) {
	rep := PassReport{Name: "PlanMemory"}
	for _, n := range g.Nodes {
		if !n.IsVar() && !outputsKnown(n) {
			return nil, rep, fmt.Errorf("plan memory: node %s (%s) has output %s, which is not fully known; infer shapes first",
				n.Name, n.Op.Name(), shapesString(n))
		}
	}
	const forever = int(^uint(0) >> 1)
	lastUse := map[Entry]int{}
	for i, n := range g.Nodes {
		for _, in := range n.Inputs {
			lastUse[in] = i
		}
	}
	for _, o := range g.Outputs {
		lastUse[o] = forever
	}

	p := &MemoryPlan{EntryBuffer: map[Entry]int{}, InPlace: map[*Node]bool{}}
	owner := map[int]Entry{} // buffer -> the entry it holds now
	var free []int           // released buffers
	allocate := func(dt ops.DType, need int) (id int, how string) {
		best, biggest := -1, -1
		for _, b := range free {
			buf := p.Buffers[b]
			if buf.DType != dt {
				continue
			}
			if buf.Elems >= need && (best < 0 || buf.Elems < p.Buffers[best].Elems) {
				best = b
			}
			if biggest < 0 || buf.Elems > p.Buffers[biggest].Elems {
				biggest = b
			}
		}
		switch {
		case best >= 0:
			id, how = best, "reuses"
		case biggest >= 0:
			id, how = biggest, "grows"
			p.Buffers[id].Elems = need
		default:
			p.Buffers = append(p.Buffers, PlannedBuffer{DType: dt, Elems: need})
			return len(p.Buffers) - 1, ""
		}
		for k, b := range free {
			if b == id {
				free = append(free[:k], free[k+1:]...)
				break
			}
		}
		return id, how
	}
	release := func(e Entry) {
		b, ok := p.EntryBuffer[e]
		if ok && owner[b] == e {
			delete(owner, b)
			free = append(free, b)
		}
	}

	for i, n := range g.Nodes {
		if n.IsVar() {
			continue
		}
		for j := range n.Shapes {
			e := Entry{n, j}
			dt, size := n.DTypes[j], n.Shapes[j].Size()
			p.NaiveBytes += int64(size) * int64(dt.Size())
			p.order = append(p.order, e)
			if _, read := lastUse[e]; !read {
				lastUse[e] = i // never read: free once the node has run
			}
			if j == 0 && allowInPlace && canRunInPlace(n, i, lastUse, p.EntryBuffer) {
				b := p.EntryBuffer[n.Inputs[0]]
				p.EntryBuffer[e], owner[b] = b, e
				p.InPlace[n] = true
				rep.add("%s writes in place over %s (buffer %d)", n.Name, n.Inputs[0].Node.Name, b)
				continue
			}
			b, how := allocate(dt, size)
			p.EntryBuffer[e], owner[b] = b, e
			if how != "" {
				rep.add("%s %s buffer %d", entryLabel(e), how, b)
			}
		}
		// The node has run: release what it was the last to read.
		for _, in := range n.Inputs {
			if !in.Node.IsVar() && lastUse[in] == i {
				release(in)
			}
		}
		for j := range n.Shapes {
			if e := (Entry{n, j}); lastUse[e] == i {
				release(e)
			}
		}
	}
	for _, b := range p.Buffers {
		p.PlannedBytes += int64(b.Elems) * int64(b.DType.Size())
	}
	rep.add("%s, %d bytes planned (%d bytes with one buffer per output)", buffersString(len(p.Buffers)), p.PlannedBytes, p.NaiveBytes)
	return p, rep, nil
}

// canRunInPlace reports whether node n (at position i) may write output 0
// over input 0: its op allows it, and input 0 is an op-node output of the
// same dtype and size that dies here and that no other input slot reads.
func canRunInPlace(n *Node, i int, lastUse map[Entry]int, buffers map[Entry]int) bool {
	if !n.Op.InPlace() || len(n.Inputs) == 0 {
		return false
	}
	in := n.Inputs[0]
	if in.Node.IsVar() || lastUse[in] != i {
		return false
	}
	if _, ok := buffers[in]; !ok {
		return false
	}
	if in.DType() != n.DTypes[0] || in.Shape().Size() != n.Shapes[0].Size() {
		return false
	}
	for _, other := range n.Inputs[1:] {
		if other == in {
			return false
		}
	}
	return true
}

// entryLabel names an entry as listings refer to it: "relu0", or
// "split0.1" for an output of a node with several.
func entryLabel(e Entry) string {
	if e.Node.NumOutputs() > 1 {
		return fmt.Sprintf("%s.%d", e.Node.Name, e.Index)
	}
	return e.Node.Name
}

// String prints the plan as a table, one buffer per row, with the entries
// that share it in the order they are written ("*" marks an entry written
// in place over the one before it):
//
//	memory plan: 1 buffer, 24 bytes planned, 72 bytes with one buffer per output
//	buffer  dtype    elems  bytes  entries
//	0       float32  6      24     relu0, tanh0*, relu1*
func (p *MemoryPlan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory plan: %s, %d bytes planned, %d bytes with one buffer per output\n",
		buffersString(len(p.Buffers)), p.PlannedBytes, p.NaiveBytes)
	users := make([][]string, len(p.Buffers))
	for _, e := range p.order {
		id := p.EntryBuffer[e]
		label := entryLabel(e)
		if e.Index == 0 && p.InPlace[e.Node] {
			label += "*"
		}
		users[id] = append(users[id], label)
	}
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "buffer\tdtype\telems\tbytes\tentries")
	for id, buf := range p.Buffers {
		fmt.Fprintf(w, "%d\t%v\t%d\t%d\t%s\n", id, buf.DType, buf.Elems, int64(buf.Elems)*int64(buf.DType.Size()), strings.Join(users[id], ", "))
	}
	w.Flush()
	return b.String()
}

// buffersString prints "1 buffer" or "n buffers".
func buffersString(n int) string {
	if n == 1 {
		return "1 buffer"
	}
	return fmt.Sprintf("%d buffers", n)
}
