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
// "softrelu", "softsign"), or nothing for "".
func activate(f ops.F, x ops.Tensor, act string) ops.Tensor {
	if act == "" {
		return x
	}
	return f.Activation(x, act)
}

// Dense is a fully connected layer: y = act(x·Wᵀ + b).
type Dense struct {
	HybridBlock
	Weight, Bias *Parameter
	Units        int
	Act          string // "" for none
	Flatten      bool   // flatten all but the first axis (default true)
}

// DenseOptions are Dense's options.
type DenseOptions struct {
	Act                  string // activation applied to the output ("relu", …)
	InUnits              int    // 0: inferred from the data on the first forward
	NoBias               bool
	NoFlatten            bool // apply to the last axis only
	WeightInit, BiasInit Initializer
}

// NewDense makes a Dense layer with units outputs.
func NewDense(units int, opts ...DenseOptions) *Dense {
	var o DenseOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	d := &Dense{Units: units, Act: o.Act, Flatten: !o.NoFlatten}
	d.Weight = NewParameter("weight", ops.Shape{units, o.InUnits})
	d.Weight.Init = o.WeightInit
	if !o.NoBias {
		d.Bias = NewParameter("bias", ops.Shape{units})
		d.Bias.Init = o.BiasInit
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

// Conv2D is a 2-D convolution layer over NCHW data.
type Conv2D struct {
	HybridBlock
	Weight, Bias *Parameter
	Channels     int
	Kernel       []int
	Strides      []int
	Padding      []int
	Dilation     []int
	Groups       int
	Act          string
}

// ConvOptions are the options of the convolution layers.
type ConvOptions struct {
	Strides, Padding, Dilation []int
	Groups                     int // default 1
	InChannels                 int // 0: inferred from the data
	Act                        string
	NoBias                     bool
	WeightInit, BiasInit       Initializer
}

// NewConv2D makes a 2-D convolution with channels filters of size kernel
// (one number for a square kernel, or two).
func NewConv2D(channels int, kernel []int, opts ...ConvOptions) *Conv2D {
	var o ConvOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	k := expand(kernel, 2)
	groups := max(o.Groups, 1)
	c := &Conv2D{Channels: channels, Kernel: k, Strides: expand(o.Strides, 2), Padding: expand(o.Padding, 2),
		Dilation: expand(o.Dilation, 2), Groups: groups, Act: o.Act}
	inPer := 0
	if o.InChannels > 0 {
		inPer = o.InChannels / groups
	}
	c.Weight = NewParameter("weight", ops.Shape{channels, inPer, k[0], k[1]})
	c.Weight.Init = o.WeightInit
	if !o.NoBias {
		c.Bias = NewParameter("bias", ops.Shape{channels})
		c.Bias.Init = o.BiasInit
	}
	c.Bind(c, "conv")
	return c
}

// expand repeats a one-number size to n dims ([5] -> [5, 5]); nil stays nil.
func expand(s []int, n int) []int {
	if len(s) == 1 && n > 1 {
		out := make([]int, n)
		for i := range out {
			out[i] = s[0]
		}
		return out
	}
	return s
}

// HybridForward convolves x.
func (c *Conv2D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	var bias ops.Tensor
	if c.Bias != nil {
		bias = Param(F, c.Bias)
	}
	attrs := []ops.Attr{{Name: "num_group", Value: c.Groups}}
	if c.Strides != nil {
		attrs = append(attrs, ops.Attr{Name: "stride", Value: c.Strides})
	}
	if c.Padding != nil {
		attrs = append(attrs, ops.Attr{Name: "pad", Value: c.Padding})
	}
	if c.Dilation != nil {
		attrs = append(attrs, ops.Attr{Name: "dilate", Value: c.Dilation})
	}
	nameOutput(F)
	return activate(F, F.Convolution(x, Param(F, c.Weight), bias, c.Kernel, c.Channels, attrs...), c.Act)
}

// MaxPool2D takes the maximum over windows.
type MaxPool2D struct {
	HybridBlock
	PoolSize, Strides, Padding []int
	CeilMode                   bool
}

// NewMaxPool2D makes a max pooling layer; strides default to the pool size.
func NewMaxPool2D(poolSize []int, strides ...int) *MaxPool2D {
	p := &MaxPool2D{PoolSize: expand(poolSize, 2), Strides: expand(strides, 2)}
	if len(p.Strides) == 0 {
		p.Strides = p.PoolSize
	}
	p.Bind(p, "pool")
	return p
}

// HybridForward pools x.
func (p *MaxPool2D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	attrs := []ops.Attr{{Name: "stride", Value: p.Strides}}
	if p.Padding != nil {
		attrs = append(attrs, ops.Attr{Name: "pad", Value: p.Padding})
	}
	if p.CeilMode {
		attrs = append(attrs, ops.Attr{Name: "pooling_convention", Value: "full"})
	}
	nameOutput(F)
	return F.Pooling(x, p.PoolSize, "max", attrs...)
}

// HybridSequential stacks hybrid blocks: each one's output is the next
// one's input. It hybridizes as a whole.
type HybridSequential struct {
	HybridBlock
	Layers []HybridForwarder
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

// Sequential stacks blocks of any kind and runs them eagerly.
type Sequential struct {
	Block
	Layers []any
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
