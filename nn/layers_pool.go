package nn

import (
	"fmt"

	"github.com/hybridgo/hybridgo/ops"
)

// The pooling layers: MaxPool1D, MaxPool2D, AvgPool1D and AvgPool2D
// share PoolOptions and the fields of Pool; GlobalMaxPool1D/2D and
// GlobalAvgPool1D/2D share GlobalPoolOptions and GlobalPool. As in Gluon,
// they are named "pool" (pool0, pool1, …). The kernels support 1-D (NCW)
// and 2-D (NCHW) data only, so there are no 3-D pools.

// PoolOptions are the options of the pooling layers, Gluon's keyword
// arguments. Sizes hold one value, used in every spatial dim, or one per
// dim.
type PoolOptions struct {
	Strides []int // step between windows; default: the pool size
	Padding []int // padding on both sides of each spatial dim; default 0
	// CeilMode rounds the output size up instead of down.
	CeilMode bool
	Layout   string // "" or the channels-first layout (NCW, NCHW), the only one supported
	// ExcludePad leaves the padding out of each average's divisor
	// (Gluon's count_include_pad=False); average pools only.
	ExcludePad bool
}

// Pool holds the fields of the pooling layers, which the forward reads
// (a hybridized block when it traces). Each output dim is (in + 2*pad -
// size)/stride + 1, rounded down, or up with CeilMode.
type Pool struct {
	HybridBlock
	PoolSize, Strides, Padding []int // one value per spatial dim; nil Padding is 0
	CeilMode                   bool
	Layout                     string
	CountIncludePad            bool // average pools: count the padding in the divisor
}

// MaxPool1D takes the maximum over windows of NCW data.
type MaxPool1D Pool

// MaxPool2D takes the maximum over windows of NCHW data.
type MaxPool2D Pool

// AvgPool1D averages windows of NCW data.
type AvgPool1D Pool

// AvgPool2D averages windows of NCHW data.
type AvgPool2D Pool

// NewMaxPool1D makes a max pooling layer with windows of poolSize[0].
func NewMaxPool1D(poolSize []int, opts ...PoolOptions) *MaxPool1D {
	p := (*MaxPool1D)(newPool("nn.NewMaxPool1D", 1, false, poolSize, opts))
	p.Bind(p, "pool")
	return p
}

// NewMaxPool2D makes a max pooling layer with windows of one size
// (square) or two.
func NewMaxPool2D(poolSize []int, opts ...PoolOptions) *MaxPool2D {
	p := (*MaxPool2D)(newPool("nn.NewMaxPool2D", 2, false, poolSize, opts))
	p.Bind(p, "pool")
	return p
}

// NewAvgPool1D makes an average pooling layer with windows of
// poolSize[0].
func NewAvgPool1D(poolSize []int, opts ...PoolOptions) *AvgPool1D {
	p := (*AvgPool1D)(newPool("nn.NewAvgPool1D", 1, true, poolSize, opts))
	p.Bind(p, "pool")
	return p
}

// NewAvgPool2D makes an average pooling layer with windows of one size
// (square) or two.
func NewAvgPool2D(poolSize []int, opts ...PoolOptions) *AvgPool2D {
	p := (*AvgPool2D)(newPool("nn.NewAvgPool2D", 2, true, poolSize, opts))
	p.Bind(p, "pool")
	return p
}

// HybridForward pools x.
func (p *MaxPool1D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*Pool)(p).forward(F, x, "max")
}

// HybridForward pools x.
func (p *MaxPool2D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*Pool)(p).forward(F, x, "max")
}

// HybridForward pools x.
func (p *AvgPool1D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*Pool)(p).forward(F, x, "avg")
}

// HybridForward pools x.
func (p *AvgPool2D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*Pool)(p).forward(F, x, "avg")
}

// newPool checks the arguments of a pool of nd spatial dims and makes its
// fields; the caller binds it.
func newPool(constructor string, nd int, avg bool, poolSize []int, opts []PoolOptions) *Pool {
	o := OneOption(constructor, opts)
	p := &Pool{
		PoolSize:        required(constructor, "poolSize", poolSize, nd),
		Strides:         spatial(constructor, "Strides", o.Strides, nd, 1),
		Padding:         spatial(constructor, "Padding", o.Padding, nd, 0),
		CeilMode:        o.CeilMode,
		Layout:          o.Layout,
		CountIncludePad: avg && !o.ExcludePad,
	}
	if p.Strides == nil {
		p.Strides = p.PoolSize
	}
	checkLayout(constructor, o.Layout, nd)
	if o.ExcludePad && !avg {
		panic(fmt.Errorf("%s: ExcludePad applies to average pooling only", constructor))
	}
	return p
}

// forward runs Pooling of poolType with the fields as attributes.
func (p *Pool) forward(F ops.F, x ops.Tensor, poolType string) ops.Tensor {
	attrs := []ops.Attr{{Name: "stride", Value: p.Strides}}
	if p.Padding != nil {
		attrs = append(attrs, ops.Attr{Name: "pad", Value: p.Padding})
	}
	if p.CeilMode {
		attrs = append(attrs, ops.Attr{Name: "pooling_convention", Value: "full"})
	}
	if p.Layout != "" {
		attrs = append(attrs, ops.Attr{Name: "layout", Value: p.Layout})
	}
	if poolType == "avg" {
		attrs = append(attrs, ops.Attr{Name: "count_include_pad", Value: p.CountIncludePad})
	}
	nameOutput(F)
	return F.Pooling(x, p.PoolSize, poolType, attrs...)
}

// GlobalPoolOptions are the options of the global pooling layers.
type GlobalPoolOptions struct {
	Layout string // "" or the channels-first layout (NCW, NCHW), the only one supported
}

// GlobalPool holds the fields of the global pooling layers, which take
// the maximum or the average of each whole channel: NCW data gives (N,
// C, 1), NCHW data (N, C, 1, 1).
type GlobalPool struct {
	HybridBlock
	Layout string
}

// GlobalMaxPool1D takes the maximum of each channel of NCW data.
type GlobalMaxPool1D GlobalPool

// GlobalMaxPool2D takes the maximum of each channel of NCHW data.
type GlobalMaxPool2D GlobalPool

// GlobalAvgPool1D averages each channel of NCW data.
type GlobalAvgPool1D GlobalPool

// GlobalAvgPool2D averages each channel of NCHW data.
type GlobalAvgPool2D GlobalPool

// NewGlobalMaxPool1D makes a layer that takes the maximum of each
// channel of NCW data.
func NewGlobalMaxPool1D(opts ...GlobalPoolOptions) *GlobalMaxPool1D {
	p := (*GlobalMaxPool1D)(newGlobalPool("nn.NewGlobalMaxPool1D", 1, opts))
	p.Bind(p, "pool")
	return p
}

// NewGlobalMaxPool2D makes a layer that takes the maximum of each
// channel of NCHW data.
func NewGlobalMaxPool2D(opts ...GlobalPoolOptions) *GlobalMaxPool2D {
	p := (*GlobalMaxPool2D)(newGlobalPool("nn.NewGlobalMaxPool2D", 2, opts))
	p.Bind(p, "pool")
	return p
}

// NewGlobalAvgPool1D makes a layer that averages each channel of NCW
// data.
func NewGlobalAvgPool1D(opts ...GlobalPoolOptions) *GlobalAvgPool1D {
	p := (*GlobalAvgPool1D)(newGlobalPool("nn.NewGlobalAvgPool1D", 1, opts))
	p.Bind(p, "pool")
	return p
}

// NewGlobalAvgPool2D makes a layer that averages each channel of NCHW
// data.
func NewGlobalAvgPool2D(opts ...GlobalPoolOptions) *GlobalAvgPool2D {
	p := (*GlobalAvgPool2D)(newGlobalPool("nn.NewGlobalAvgPool2D", 2, opts))
	p.Bind(p, "pool")
	return p
}

// HybridForward pools each channel of x.
func (p *GlobalMaxPool1D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*GlobalPool)(p).forward(F, x, "max", 1)
}

// HybridForward pools each channel of x.
func (p *GlobalMaxPool2D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*GlobalPool)(p).forward(F, x, "max", 2)
}

// HybridForward pools each channel of x.
func (p *GlobalAvgPool1D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*GlobalPool)(p).forward(F, x, "avg", 1)
}

// HybridForward pools each channel of x.
func (p *GlobalAvgPool2D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return (*GlobalPool)(p).forward(F, x, "avg", 2)
}

func newGlobalPool(constructor string, nd int, opts []GlobalPoolOptions) *GlobalPool {
	o := OneOption(constructor, opts)
	checkLayout(constructor, o.Layout, nd)
	return &GlobalPool{Layout: o.Layout}
}

// forward runs a global Pooling of poolType over nd spatial dims. As
// Gluon does, it gives the op a window of ones and the "full" convention,
// which global pooling ignores.
func (p *GlobalPool) forward(F ops.F, x ops.Tensor, poolType string, nd int) ops.Tensor {
	attrs := []ops.Attr{{Name: "global_pool", Value: true}, {Name: "pooling_convention", Value: "full"}}
	if p.Layout != "" {
		attrs = append(attrs, ops.Attr{Name: "layout", Value: p.Layout})
	}
	nameOutput(F)
	return F.Pooling(x, []int{1, 1}[:nd], poolType, attrs...)
}
