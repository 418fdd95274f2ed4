package nn

import "github.com/hybridgo/hybridgo/ops"

// InstanceNormOptions are InstanceNorm's options. Zero values mean
// Gluon's defaults (which, unlike BatchNorm's, learn no scale).
type InstanceNormOptions struct {
	Axis                int     // the channel axis; 0 means 1
	Epsilon             float64 // added to the variance; 0 means 1e-5
	NoCenter            bool    // no learned shift: beta stays 0 and gets no gradient
	Scale               bool    // learn a scale gamma (Gluon's default is not to)
	InChannels          int     // 0: inferred from the data
	GammaInit, BetaInit Initializer
}

// InstanceNorm normalises each channel of each sample over its positions:
// out = gamma*(x-mean)/sqrt(var+eps) + beta, with the mean and variance
// of that channel of that sample, and gamma and beta one value per
// channel (Gluon's nn.InstanceNorm).
type InstanceNorm struct {
	HybridBlock
	Gamma, Beta   *Parameter
	Axis          int
	Epsilon       float64
	Center, Scale bool
}

// NewInstanceNorm makes an instance normalisation layer.
func NewInstanceNorm(opts ...InstanceNormOptions) *InstanceNorm {
	o := OneOption("nn.NewInstanceNorm", opts)
	l := &InstanceNorm{Axis: o.Axis, Epsilon: o.Epsilon, Center: !o.NoCenter, Scale: o.Scale}
	if l.Axis == 0 {
		l.Axis = 1
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

// HybridForward normalises x; a channel axis other than 1 is swapped
// into place and back, as Gluon does.
func (l *InstanceNorm) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	gamma, beta := Param(F, l.Gamma), Param(F, l.Beta)
	eps := ops.Attr{Name: "eps", Value: l.Epsilon}
	if l.Axis == 1 {
		nameOutput(F)
		return F.InstanceNorm(x, gamma, beta, eps)
	}
	x = F.SwapAxes(x, 1, l.Axis)
	return F.SwapAxes(F.InstanceNorm(x, gamma, beta, eps), 1, l.Axis)
}

// GroupNormOptions are GroupNorm's options. Zero values mean Gluon's
// defaults.
type GroupNormOptions struct {
	NumGroups           int     // the groups the channels split into; 0 means 1
	Epsilon             float64 // added to the variance; 0 means 1e-5
	NoCenter, NoScale   bool    // no learned beta, gamma
	GammaInit, BetaInit Initializer
}

// GroupNorm normalises each group of channels (axis 1) of each sample:
// out = gamma*(x-mean)/sqrt(var+eps) + beta, with the mean and variance
// of the group, and gamma and beta one value per group, as in MXNet 1.x's
// Gluon nn.GroupNorm.
type GroupNorm struct {
	HybridBlock
	Gamma, Beta   *Parameter
	NumGroups     int
	Epsilon       float64
	Center, Scale bool
}

// NewGroupNorm makes a group normalisation layer.
func NewGroupNorm(opts ...GroupNormOptions) *GroupNorm {
	o := OneOption("nn.NewGroupNorm", opts)
	l := &GroupNorm{NumGroups: o.NumGroups, Epsilon: o.Epsilon, Center: !o.NoCenter, Scale: !o.NoScale}
	if l.NumGroups == 0 {
		l.NumGroups = 1
	}
	if l.Epsilon == 0 {
		l.Epsilon = 1e-5
	}
	g := ops.Shape{l.NumGroups}
	l.Gamma = channelParam("gamma", g, o.GammaInit, One(), l.Scale)
	l.Beta = channelParam("beta", g, o.BetaInit, Zero(), l.Center)
	l.Bind(l)
	return l
}

// HybridForward normalises x.
func (l *GroupNorm) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	gamma, beta := Param(F, l.Gamma), Param(F, l.Beta)
	nameOutput(F)
	return F.GroupNorm(x, gamma, beta, l.NumGroups, ops.Attr{Name: "eps", Value: l.Epsilon})
}

// ReflectionPad2D pads the height and width of 4-D data (N, C, H, W) by
// Padding on each side with the data mirrored about its edges (Gluon's
// nn.ReflectionPad2D).
type ReflectionPad2D struct {
	HybridBlock
	Padding int
}

// NewReflectionPad2D makes a reflection padding layer.
func NewReflectionPad2D(padding int) *ReflectionPad2D {
	l := &ReflectionPad2D{Padding: padding}
	l.Bind(l)
	return l
}

// HybridForward pads x.
func (l *ReflectionPad2D) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	p := l.Padding
	nameOutput(F)
	return F.Pad(x, "reflect", []int{0, 0, 0, 0, p, p, p, p})
}
