package nn

import (
	"fmt"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// nameOutput names the node the next op records "fwd" within the block's
// scope ("dense0_fwd"), as Gluon names layer outputs; eagerly it does
// nothing.
func nameOutput(f ops.F) {
	if t, ok := f.Interpreter().(*graph.Tracer); ok {
		t.NameNext("fwd")
	}
}

// activate applies an activation by MXNet name ("relu", "sigmoid", "tanh",
// "softrelu", "softsign"), or nothing for "". Its node is named as the
// Activation child Gluon's layers make for it ("dense0_relu_fwd").
func activate(f ops.F, x ops.Tensor, act string) ops.Tensor {
	if act == "" {
		return x
	}
	if t, ok := f.Interpreter().(*graph.Tracer); ok {
		t.NameNext(act + "_fwd")
	}
	return f.Activation(x, act)
}

// Dense is a fully connected layer: y = act(x·Wᵀ + b).
type Dense struct {
	HybridBlock
	Weight, Bias *Parameter // Bias is nil with NoBias
	Units        int
	Act          string // "" for none
	Flatten      bool   // flatten all but the first axis (default true)
}

// DenseOptions are Dense's options, Gluon's keyword arguments.
type DenseOptions struct {
	Act        string    // activation applied to the output ("relu", …); "" for none
	NoBias     bool      // no bias (Gluon's use_bias=False)
	NoFlatten  bool      // apply to the last axis only (Gluon's flatten=False)
	DType      ops.DType // the parameters' dtype: float32 (the zero value) or float64
	WeightInit Initializer
	BiasInit   Initializer
	InUnits    int // 0: inferred from the data on the first forward
}

// NewDense makes a Dense layer with units outputs.
func NewDense(units int, opts ...DenseOptions) *Dense {
	o := OneOption("nn.NewDense", opts)
	checkPositive("nn.NewDense", "units", units)
	checkFloat("nn.NewDense", o.DType)
	if o.InUnits < 0 {
		panic(fmt.Errorf("nn.NewDense: InUnits=%d must not be negative", o.InUnits))
	}
	d := &Dense{Units: units, Act: o.Act, Flatten: !o.NoFlatten}
	d.Weight = NewParameter("weight", ops.Shape{units, o.InUnits})
	d.Weight.dtype, d.Weight.Init = o.DType, o.WeightInit
	if !o.NoBias {
		d.Bias = NewParameter("bias", ops.Shape{units})
		d.Bias.dtype, d.Bias.Init = o.DType, o.BiasInit
	}
	d.Bind(d)
	return d
}

// HybridForward computes act(x·Wᵀ + b).
func (d *Dense) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	var bias ops.Tensor
	if d.Bias != nil {
		bias = Param(F, d.Bias)
	}
	nameOutput(F)
	y := F.FullyConnected(x, Param(F, d.Weight), bias, d.Units, ops.Attr{Name: "flatten", Value: d.Flatten})
	return activate(F, y, d.Act)
}

// HybridSequential stacks hybrid blocks: each one's output is the next
// one's input. It hybridizes as a whole. Its children are named by their
// index ("0.weight", "1.bias"), as Gluon's are.
type HybridSequential struct {
	HybridBlock
	Layers []HybridForwarder `nn:"inline"`
}

// NewHybridSequential makes a stack of the given hybrid blocks.
func NewHybridSequential(layers ...HybridForwarder) *HybridSequential {
	s := &HybridSequential{}
	s.Bind(s)
	s.Add(layers...)
	return s
}

// Add appends blocks to the stack.
func (s *HybridSequential) Add(layers ...HybridForwarder) {
	s.Layers = append(s.Layers, layers...)
	if s.scan() {
		s.checkHybridChildren()
		s.clearCache()
	}
}

// Len is the number of blocks.
func (s *HybridSequential) Len() int { return len(s.Layers) }

// HybridForward runs the blocks in order.
func (s *HybridSequential) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	for i, l := range s.Layers {
		c := coreOf(reflectValue(l))
		if c == nil || c.hybrid == nil {
			panic(fmt.Errorf("%s: layer %d is not a bound hybrid block", s.Name(), i))
		}
		x = c.hybrid.Forward(x)
	}
	return x
}

// Sequential stacks blocks of any kind and runs them eagerly. Its
// children are named by their index, as HybridSequential's are.
type Sequential struct {
	Block
	Layers []any `nn:"inline"`
}

// NewSequential makes a stack of blocks (hybrid or plain).
func NewSequential(layers ...any) *Sequential {
	s := &Sequential{}
	s.Bind(s)
	s.Add(layers...)
	return s
}

// Add appends blocks to the stack.
func (s *Sequential) Add(layers ...any) {
	for i, l := range layers {
		if coreOf(reflectValue(l)) == nil {
			panic(fmt.Errorf("Sequential.Add: argument %d is a %T, not a bound block", i, l))
		}
	}
	s.Layers = append(s.Layers, layers...)
	s.scan()
}

// EagerForward runs the blocks in order.
func (s *Sequential) EagerForward(xs []ops.Tensor) []ops.Tensor {
	for _, l := range s.Layers {
		c := coreOf(reflectValue(l))
		switch {
		case c.hybrid != nil:
			xs = c.hybrid.ForwardN(xs...)
		default:
			xs = c.plain.Forward(xs...)
		}
	}
	return xs
}

// Hybridize hybridizes the children; when all of them are hybrid, it
// warns that a HybridSequential would run as one graph.
func (s *Sequential) Hybridize(opts ...HybridizeOptions) {
	all := len(s.children) > 0
	for _, ch := range s.children {
		all = all && ch.c.hybrid != nil
	}
	if all {
		warnf("%s: all children of this Sequential are HybridBlocks; use HybridSequential to hybridize it as one graph", s.Name())
	}
	s.Block.Hybridize(opts...)
}
