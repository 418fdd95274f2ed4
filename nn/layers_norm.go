package nn

import (
	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// BatchNormOptions are BatchNorm's options. Zero values mean Gluon's
// defaults; to use a literal 0 for Momentum, set the layer's field after
// NewBatchNorm.
type BatchNormOptions struct {
	Axis     int     // the channel axis; 0 means 1
	Momentum float64 // running = running*momentum + batch*(1-momentum); 0 means 0.9
	Epsilon  float64 // added to the variance; 0 means 1e-5
	NoCenter bool    // no learned shift: beta stays 0 and gets no gradient
	NoScale  bool    // no learned scale: gamma stays 1 and gets no gradient
	// UseGlobalStats normalises with the running statistics in training
	// too (and leaves them alone).
	UseGlobalStats bool
	InChannels     int // 0: inferred from the data
	GammaInit, BetaInit,
	RunningMeanInit, RunningVarInit Initializer // default ones, zeros, zeros, ones
}

// BatchNorm normalises each channel with the batch's mean and variance in
// training mode (eager.Record or eager.TrainMode), updating the running
// statistics, and with the running statistics in prediction mode:
// out = gamma*(x-mean)/sqrt(var+eps) + beta. Its parameters are gamma,
// beta, running_mean and running_var, one value per channel; the running
// statistics get no gradient.
type BatchNorm struct {
	HybridBlock
	Gamma, Beta             *Parameter
	RunningMean, RunningVar *Parameter
	Axis                    int
	Momentum, Epsilon       float64
	Center, Scale           bool
	UseGlobalStats          bool
}

// NewBatchNorm makes a batch normalisation layer.
func NewBatchNorm(opts ...BatchNormOptions) *BatchNorm {
	o := OneOption("nn.NewBatchNorm", opts)
	b := &BatchNorm{Axis: o.Axis, Momentum: o.Momentum, Epsilon: o.Epsilon,
		Center: !o.NoCenter, Scale: !o.NoScale, UseGlobalStats: o.UseGlobalStats}
	if b.Axis == 0 {
		b.Axis = 1
	}
	if b.Momentum == 0 {
		b.Momentum = 0.9
	}
	if b.Epsilon == 0 {
		b.Epsilon = 1e-5
	}
	c := ops.Shape{o.InChannels}
	b.Gamma = channelParam("gamma", c, o.GammaInit, One(), b.Scale)
	b.Beta = channelParam("beta", c, o.BetaInit, Zero(), b.Center)
	b.RunningMean = channelParam("running_mean", c, o.RunningMeanInit, Zero(), false)
	b.RunningVar = channelParam("running_var", c, o.RunningVarInit, One(), false)
	b.Bind(b)
	return b
}

// channelParam makes a per-channel parameter with an initializer (or the
// default), learned or not (grad_req null).
func channelParam(name string, shape ops.Shape, init, def Initializer, learned bool) *Parameter {
	p := NewParameter(name, shape)
	p.Init = init
	if p.Init == nil {
		p.Init = def
	}
	if !learned {
		p.gradReq = eager.GradNull
	}
	return p
}

// HybridForward normalises x.
func (b *BatchNorm) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	gamma, beta := Param(F, b.Gamma), Param(F, b.Beta)
	mean, variance := Param(F, b.RunningMean), Param(F, b.RunningVar)
	nameOutput(F)
	return F.BatchNorm(x, gamma, beta, mean, variance,
		ops.Attr{Name: "axis", Value: b.Axis},
		ops.Attr{Name: "eps", Value: b.Epsilon},
		ops.Attr{Name: "momentum", Value: b.Momentum},
		ops.Attr{Name: "fix_gamma", Value: !b.Scale},
		ops.Attr{Name: "use_global_stats", Value: b.UseGlobalStats})
}

// LayerNormOptions are LayerNorm's options. Zero values mean Gluon's
// defaults; to normalise over axis 0, set the layer's Axis after
// NewLayerNorm.
type LayerNormOptions struct {
	Axis                int     // the axis normalised over; 0 means -1 (the last)
	Epsilon             float64 // added to the variance; 0 means 1e-5
	NoCenter, NoScale   bool    // no learned beta, gamma
	InChannels          int     // the size of the axis; 0: inferred from the data
	GammaInit, BetaInit Initializer
}

// LayerNorm normalises each position along one axis (the last by
// default) with its own mean and variance: out = gamma*(x-mean)/
// sqrt(var+eps) + beta, with gamma and beta one value per position on
// the axis.
type LayerNorm struct {
	HybridBlock
	Gamma, Beta   *Parameter
	Axis          int
	Epsilon       float64
	Center, Scale bool
}

// NewLayerNorm makes a layer normalisation layer.
func NewLayerNorm(opts ...LayerNormOptions) *LayerNorm {
	o := OneOption("nn.NewLayerNorm", opts)
	l := &LayerNorm{Axis: o.Axis, Epsilon: o.Epsilon, Center: !o.NoCenter, Scale: !o.NoScale}
	if l.Axis == 0 {
		l.Axis = -1
	}
	if l.Epsilon == 0 {
		l.Epsilon = 1e-5
	}
	c := ops.Shape{o.InChannels}
	l.Gamma = channelParam("gamma", c, o.GammaInit, One(), l.Scale)
	l.Beta = channelParam("beta", c, o.BetaInit, Zero(), l.Center)
	l.Bind(l)
	return l
}

// HybridForward normalises x.
func (l *LayerNorm) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	gamma, beta := Param(F, l.Gamma), Param(F, l.Beta)
	nameOutput(F)
	return F.LayerNorm(x, gamma, beta, ops.Attr{Name: "axis", Value: l.Axis}, ops.Attr{Name: "eps", Value: l.Epsilon})
}
