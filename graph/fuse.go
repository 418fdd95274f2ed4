package graph

import (
	"fmt"
	"strings"

	"github.com/hybridgo/hybridgo/accel"
	"github.com/hybridgo/hybridgo/ops"
)

// Element-wise fusion: a group of element-wise nodes whose intermediate
// results are read only inside the group becomes one node that runs a
// small program per output element, with no intermediate arrays.

// fusedAttrs are the attributes of a fused node: the names of the nodes it
// replaced (printed in listings) and the compiled program.
type fusedAttrs struct {
	Nodes string `attr:"nodes" doc:"the fused nodes, in order"`
	prog  *fusedProgram
}

// fusedProgram evaluates a fused group for one element. Registers 0..nIn-1
// hold the inputs; instruction j writes register nIn+j; the last register
// is the result.
type fusedProgram struct {
	dtype   ops.DType
	nIn     int
	instrs  []fusedInstr
	maxArgs int // the most arguments of any instruction
}

type fusedInstr struct {
	fn   func([]float64) float64
	args []int // registers
	kind fusedKind
}

// fusedKind names the instructions the fused loop runs as a typed loop
// over a block of elements (accel's vector kernels) instead of calling fn
// per element. Their result in T equals fn's rounded to T: a sum,
// difference, product or quotient of two float32 values is correctly
// rounded either way, and relu only picks values.
type fusedKind uint8

const (
	fusedCall fusedKind = iota // call fn per element
	fusedAdd
	fusedSub
	fusedMul
	fusedDiv
	fusedRelu // max(x, 0), one argument
)

// fusedKindOf returns the typed loop of a member, or fusedCall.
func fusedKindOf(n *Node) fusedKind {
	if len(n.Inputs) == 1 && ops.IsRelu(n.Op, n.Attrs) {
		return fusedRelu
	}
	if len(n.Inputs) != 2 {
		return fusedCall
	}
	switch n.Op.Name() {
	case "broadcast_add", "elemwise_add":
		return fusedAdd
	case "broadcast_sub", "elemwise_sub":
		return fusedSub
	case "broadcast_mul", "elemwise_mul":
		return fusedMul
	case "broadcast_div", "elemwise_div":
		return fusedDiv
	}
	return fusedCall
}

// fusionGrain is how many output elements one parallel chunk evaluates.
const fusionGrain = 1 << 13

// fusionBlock is how many elements the fused loop evaluates one
// instruction over before it moves on to the next.
const fusionBlock = 256

// fusible reports whether n can join a fused group, and its per-element
// function: one output, float32 or float64 like all its inputs.
func fusible(n *Node) (func([]float64) float64, bool) {
	if n.IsVar() || len(n.Shapes) != 1 || len(n.DTypes) != 1 {
		return nil, false
	}
	fn, ok := n.Op.ElemFunc(n.Attrs)
	if !ok || n.Op.Random() || len(n.Inputs) != len(n.Op.InputNames(n.Attrs)) {
		return nil, false
	}
	d := n.DTypes[0]
	if d != ops.Float32 && d != ops.Float64 {
		return nil, false
	}
	for _, in := range n.Inputs {
		if in.DType() != d {
			return nil, false
		}
	}
	return fn, true
}

// FuseElementwise replaces each group of two or more connected
// element-wise nodes, whose results other than the last are read only
// inside the group, with one node named "fused<N>" whose op (made with
// ops.Define, never registered) runs the group in one loop over the
// output elements. Its inputs are the group's external inputs, which
// broadcast to the output's shape. Only float32 and float64 groups are
// fused; float32 results are rounded after every step, so values equal
// the unfused graph's exactly. Fused nodes have no gradient rule: fuse
// after differentiating.
func FuseElementwise(g *Graph) (*Graph, PassReport) {
	rep := PassReport{Name: "FuseElementwise"}
	c := cloneGraph(g)

	uses := map[Entry]int{}
	isOutput := map[Entry]bool{}
	for _, n := range c.Nodes {
		for _, in := range n.Inputs {
			uses[in]++
		}
	}
	for _, o := range c.Outputs {
		isOutput[o] = true
	}
	funcs := map[*Node]func([]float64) float64{}
	for _, n := range c.Nodes {
		if fn, ok := fusible(n); ok {
			funcs[n] = fn
		}
	}

	// Grow groups from their last node backwards: an input joins when it
	// is fusible, free, not a graph output, and read only by the group.
	groupOf := map[*Node]*Node{} // member -> its group's last node
	roots := map[*Node][]*Node{} // last node -> members in graph order
	for i := len(c.Nodes) - 1; i >= 0; i-- {
		root := c.Nodes[i]
		if funcs[root] == nil || groupOf[root] != nil {
			continue
		}
		members := map[*Node]bool{root: true}
		inside := map[Entry]int{}
		for _, in := range root.Inputs {
			inside[in]++
		}
		for grew := true; grew; {
			grew = false
			for m := range members {
				for _, in := range m.Inputs {
					p := in.Node
					if members[p] || funcs[p] == nil || groupOf[p] != nil || isOutput[in] || uses[in] != inside[in] {
						continue
					}
					members[p] = true
					for _, pin := range p.Inputs {
						inside[pin]++
					}
					grew = true
				}
			}
		}
		if len(members) < 2 {
			continue
		}
		var ordered []*Node
		for _, n := range c.Nodes[:i+1] {
			if members[n] {
				ordered = append(ordered, n)
				groupOf[n] = root
			}
		}
		roots[root] = ordered
	}
	if len(roots) == 0 {
		return c, rep
	}

	taken := map[string]bool{}
	for _, n := range c.Nodes {
		taken[n.Name] = true
	}
	count := 0
	fresh := func() string {
		for {
			name := fmt.Sprintf("fused%d", count)
			count++
			if !taken[name] {
				taken[name] = true
				return name
			}
		}
	}

	replaced := map[Entry]Entry{}
	nodes := make([]*Node, 0, len(c.Nodes))
	for _, n := range c.Nodes {
		for i, in := range n.Inputs {
			if r, ok := replaced[in]; ok {
				n.Inputs[i] = r
			}
		}
		if root := groupOf[n]; root != nil && root != n {
			continue // emitted with its group
		}
		members, ok := roots[n]
		if !ok {
			nodes = append(nodes, n)
			continue
		}
		fused, err := fuseGroup(members, funcs, fresh())
		if err != nil {
			// Cannot happen for a graph that inferred; keep the group as is.
			nodes = append(nodes, members...)
			continue
		}
		replaced[Entry{n, 0}] = Entry{fused, 0}
		nodes = append(nodes, fused)
		names := make([]string, len(members))
		for i, m := range members {
			names[i] = m.Name
		}
		rep.add("fused %s into %s", strings.Join(names, " -> "), fused.Name)
	}
	c.Nodes = nodes
	c.remap(replaced)
	return c, rep
}

// fuseGroup compiles the members (in graph order, the last one the
// group's result) into one node.
func fuseGroup(members []*Node, funcs map[*Node]func([]float64) float64, name string) (*Node, error) {
	inGroup := map[*Node]int{} // member -> its instruction
	for j, m := range members {
		inGroup[m] = j
	}
	var external []Entry
	extReg := map[Entry]int{}
	for _, m := range members {
		for _, in := range m.Inputs {
			if _, ok := inGroup[in.Node]; ok {
				continue
			}
			if _, ok := extReg[in]; !ok {
				extReg[in] = len(external)
				external = append(external, in)
			}
		}
	}
	last := members[len(members)-1]
	prog := &fusedProgram{dtype: last.DTypes[0], nIn: len(external)}
	var doc strings.Builder
	fmt.Fprintf(&doc, "Fused element-wise loop (made by FuseElementwise, not registered; no gradient) over in0..in%d:", len(external)-1)
	names := make([]string, len(members))
	for j, m := range members {
		ins := fusedInstr{fn: funcs[m], kind: fusedKindOf(m)}
		args := make([]string, len(m.Inputs))
		for k, in := range m.Inputs {
			if i, ok := inGroup[in.Node]; ok {
				ins.args = append(ins.args, prog.nIn+i)
				args[k] = in.Node.Name
			} else {
				ins.args = append(ins.args, extReg[in])
				args[k] = fmt.Sprintf("in%d", extReg[in])
			}
		}
		call := strings.Join(args, ", ")
		if a := m.Op.AttrString(m.Attrs); a != "" {
			call += "; " + a
		}
		fmt.Fprintf(&doc, " %s = %s(%s);", m.Name, m.Op.Name(), call)
		prog.instrs = append(prog.instrs, ins)
		prog.maxArgs = max(prog.maxArgs, len(ins.args))
		names[j] = m.Name
	}
	inNames := make([]string, len(external))
	for i := range inNames {
		inNames[i] = fmt.Sprintf("in%d", i)
	}
	op := ops.Define(ops.Def[fusedAttrs]{
		Name:   "_fused_elemwise",
		Kind:   "fused",
		Doc:    strings.TrimSuffix(doc.String(), ";") + ".",
		Inputs: inNames,
		Shape: func(_ *fusedAttrs, in []ops.Shape) ([]ops.Shape, error) {
			out := in[0].Clone()
			for i := 1; i < len(in); i++ {
				b, err := ops.BroadcastShapes(out, in[i])
				if err != nil {
					return nil, ops.Errorf("in%d %v does not broadcast with the other inputs: %v", i, in[i], err)
				}
				out = b
			}
			return []ops.Shape{out}, nil
		},
		Kernel: func(_ *ops.Env, a *fusedAttrs, in, out []ops.Value) error { return a.prog.run(in, out[0]) },
	})
	n := &Node{Op: op, Name: name, Inputs: external,
		Attrs: &fusedAttrs{Nodes: strings.Join(names, ","), prog: prog}}
	if err := inferNode(n); err != nil {
		return nil, err
	}
	return n, nil
}

// run evaluates the program over out's elements.
func (p *fusedProgram) run(in []ops.Value, out ops.Value) error {
	for i, v := range in {
		if v.DType != p.dtype {
			return ops.Errorf("in%d is %v; this fused loop was built for %v", i, v.DType, p.dtype)
		}
	}
	switch p.dtype {
	case ops.Float32:
		fusedLoop[float32](p, in, out)
	case ops.Float64:
		fusedLoop[float64](p, in, out)
	default:
		return ops.Errorf("dtype %v is not supported (float32 and float64 are)", p.dtype)
	}
	return nil
}

// fusedLoop runs the program for every output element, a block of
// fusionBlock elements at a time: the inputs' values for the block are
// read (at their broadcast offsets, kept by an odometer over the output's
// index, a run along the last dim at a time; equal-shape inputs in
// place), then each instruction runs over the whole block, add, sub,
// mul, div and relu as typed loops, the last one into the output; an
// instruction whose arguments hold one value over the block (terms of
// per-channel inputs) runs once and fills its block. Registers hold T,
// so each step's result is rounded to T, as the unfused kernel's output
// is.
//
// The loop's state is recycled and its register blocks come from the
// scratch pool, so that a call allocates nothing.
func fusedLoop[T float32 | float64](p *fusedProgram, in []ops.Value, out ops.Value) {
	l := accel.GetRecycled[fusedRange[T]]()
	l.p, l.dst, l.shape, l.plain = p, out.Data.([]T), out.Shape, true
	l.srcs, l.strides, l.whole = l.srcBuf[:0], l.strideBuf[:0], l.wholeBuf[:0]
	nd := len(out.Shape)
	for k, v := range in {
		l.srcs = append(l.srcs, v.Data.([]T))
		var st []int
		if k < len(l.strideArr) && nd <= len(l.strideArr[k]) {
			st = l.strideArr[k][:nd]
		} else {
			st = make([]int, nd)
		}
		ops.BroadcastStridesTo(st, v.Shape, out.Shape) // into scratch: the fused loop allocates nothing
		l.strides = append(l.strides, st)
		l.whole = append(l.whole, v.Shape.Equal(out.Shape))
		l.plain = l.plain && l.whole[k]
	}
	if !l.plain && nd <= len(l.shapeArr) && len(in) <= len(l.strideArr) {
		l.coalesce()
	}
	accel.ParallelLoop(len(l.dst), fusionGrain, l)
	accel.Recycle(l)
}

// coalesce rewrites the loop's shape and the inputs' strides with the
// output's dims of size 1 left out and each pair of adjacent dims that
// every input reads alike merged (dim d+1 runs contiguously within dim d,
// or both are broadcast), so that the runs along the last dim, which
// gather copies or fills whole, are as long as they can be: a
// per-channel parameter over NCHW maps becomes runs of H*W.
func (l *fusedRange[T]) coalesce() {
	shape := l.shapeArr[:0]
	for d, n := range l.shape {
		if n == 1 {
			continue
		}
		merge := len(shape) > 0
		for _, st := range l.strides {
			merge = merge && st[len(shape)-1] == st[d]*n
		}
		if merge {
			shape[len(shape)-1] *= n
			for _, st := range l.strides {
				st[len(shape)-1] = st[d]
			}
			continue
		}
		for _, st := range l.strides {
			st[len(shape)] = st[d]
		}
		shape = append(shape, n)
	}
	if len(shape) == 0 {
		shape = append(shape, 1)
		for _, st := range l.strides {
			st[0] = 0
		}
	}
	for k := range l.strides {
		l.strides[k] = l.strides[k][:len(shape)]
	}
	l.shape = ops.Shape(shape)
}

// fusedRange is fusedLoop's state, handed to the worker pool. Up to eight
// inputs of up to eight dims fit in its own arrays.
type fusedRange[T float32 | float64] struct {
	p       *fusedProgram
	dst     []T
	srcs    [][]T
	strides [][]int
	whole   []bool // inputs of the output's shape, read as they lie
	plain   bool   // all of them
	shape   ops.Shape

	wholeBuf  [8]bool
	srcBuf    [8][]T
	strideBuf [8][]int
	strideArr [8][8]int
	shapeArr  [8]int
}

func (l *fusedRange[T]) Range(lo, hi int) {
	p, dst, srcs, strides, plain, shape := l.p, l.dst, l.srcs, l.strides, l.plain, l.shape
	nd := len(shape)
	nReg := p.nIn + len(p.instrs)
	var idxBuf [8]int
	var offsBuf [8]int
	var regsBuf [32][]T
	idx := scratchOf(idxBuf[:], nd)
	offs := scratchOf(offsBuf[:], len(srcs))
	regs := regsBuf[:0]
	if nReg > len(regsBuf) {
		regs = make([][]T, 0, nReg)
	}
	regs = regs[:nReg]
	var constBuf [32]bool
	isConst := constBuf[:0] // per register: one value over the whole block
	if nReg > len(constBuf) {
		isConst = make([]bool, nReg)
	}
	isConst = isConst[:nReg]
	// Every register but the result has a block of its own.
	blocksBuf := accel.GetScratch[T]((nReg - 1) * fusionBlock)
	defer accel.PutScratch(blocksBuf)
	blocks := *blocksBuf
	// The argument list is handed to the instructions' functions, so it
	// would not stay on the stack anyway.
	argsBuf := accel.GetScratch[float64](p.maxArgs)
	defer accel.PutScratch(argsBuf)
	args := *argsBuf
	if !plain {
		r := lo
		for d := nd - 1; d >= 0; d-- {
			idx[d] = r % shape[d]
			r /= shape[d]
		}
		for k := range srcs {
			for d := range nd {
				offs[k] += idx[d] * strides[k][d]
			}
		}
	}
	for base := lo; base < hi; base += fusionBlock {
		n := min(fusionBlock, hi-base)
		for r := range nReg - 1 {
			regs[r] = blocks[r*fusionBlock : r*fusionBlock+n]
		}
		regs[nReg-1] = dst[base : base+n]
		// An input broadcast along the last dim holds one value over the
		// block when the block stays within one run of it: then so do
		// the instructions on such inputs alone (a BatchNorm gradient's
		// per-channel terms), which are computed once and filled.
		anyConst := false
		if plain || nd == 0 || idx[nd-1]+n > shape[nd-1] {
			clear(isConst[:len(srcs)])
		} else {
			for k := range srcs {
				isConst[k] = !l.whole[k] && strides[k][nd-1] == 0
				anyConst = anyConst || isConst[k]
			}
		}
		if plain {
			for k, src := range srcs {
				regs[k] = src[base : base+n]
			}
		} else {
			l.gather(regs[:len(srcs)], idx, offs)
			for k, src := range srcs {
				if l.whole[k] {
					regs[k] = src[base : base+n]
				}
			}
		}
		for j, ins := range p.instrs {
			out := regs[p.nIn+j]
			c := anyConst
			for _, r := range ins.args {
				c = c && isConst[r]
			}
			isConst[p.nIn+j] = c
			if c {
				fusedConst(ins, regs, args, out)
				continue
			}
			if ins.kind != fusedCall {
				fusedTyped(ins, regs, out)
				continue
			}
			a := args[:len(ins.args)]
			for i := range out {
				for m, r := range ins.args {
					a[m] = float64(regs[r][i])
				}
				out[i] = T(ins.fn(a))
			}
		}
	}
}

// fusedConst runs instruction ins, all of whose arguments hold one value
// over the block, for the first element and fills out with the result:
// the value that each element would get.
func fusedConst[T float32 | float64](ins fusedInstr, regs [][]T, args []float64, out []T) {
	if ins.kind != fusedCall {
		fusedTyped(ins, regs, out[:1])
	} else {
		a := args[:len(ins.args)]
		for m, r := range ins.args {
			a[m] = float64(regs[r][0])
		}
		out[0] = T(ins.fn(a))
	}
	accel.Fill(out[1:], out[0])
}

// gather reads the next len(regs[0]) elements of every broadcast input,
// at their offsets, into regs, and moves the odometer on: a run along
// the last dim at a time, copied (stride 1) or filled (stride 0). The
// inputs of the output's shape are not copied: Range reads them as they
// lie (a BatchNorm gradient's loop copied its two whole inputs, a fifth
// of its work).
func (l *fusedRange[T]) gather(regs [][]T, idx, offs []int) {
	srcs, strides, shape := l.srcs, l.strides, l.shape
	nd := len(shape)
	if nd == 0 {
		for k, src := range srcs {
			regs[k][0] = src[0]
		}
		return
	}
	last := nd - 1
	for i, n := 0, len(regs[0]); i < n; {
		run := min(n-i, shape[last]-idx[last])
		for k, src := range srcs {
			if l.whole[k] {
				continue // read as it lies (Range)
			}
			dst, off := regs[k][i:i+run], offs[k]
			switch st := strides[k][last]; st {
			case 0:
				accel.Fill(dst, src[off])
			case 1:
				copy(dst, src[off:off+run])
			default:
				for m := range dst {
					dst[m] = src[off+m*st]
				}
			}
			offs[k] += run * strides[k][last]
		}
		i += run
		idx[last] += run
		if idx[last] < shape[last] {
			continue
		}
		for k := range offs {
			offs[k] -= strides[k][last] * idx[last]
		}
		idx[last] = 0
		for d := last - 1; d >= 0; d-- {
			idx[d]++
			for k := range offs {
				offs[k] += strides[k][d]
			}
			if idx[d] < shape[d] {
				break
			}
			for k := range offs {
				offs[k] -= strides[k][d] * idx[d]
			}
			idx[d] = 0
		}
	}
}

// fusedTyped is one typed instruction over a block: out = a op b, or
// relu(a).
func fusedTyped[T float32 | float64](ins fusedInstr, regs [][]T, out []T) {
	a := regs[ins.args[0]][:len(out)]
	if ins.kind == fusedRelu {
		accel.Relu(a, out)
		return
	}
	accel.Arith(fusedArith[ins.kind], out, a, regs[ins.args[1]])
}

// fusedArith is the accel operation of each typed instruction.
var fusedArith = [...]accel.ArithOp{fusedAdd: accel.ArithAdd, fusedSub: accel.ArithSub, fusedMul: accel.ArithMul, fusedDiv: accel.ArithDiv}

// scratchOf returns buf[:n] cleared, or a new slice when buf is too short.
func scratchOf[E float64 | int](buf []E, n int) []E {
	if n <= len(buf) {
		s := buf[:n]
		clear(s)
		return s
	}
	return make([]E, n)
}
