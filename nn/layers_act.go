package nn

import (
	"fmt"

	"github.com/hybridgo/hybridgo/ops"
)

// Activation applies an activation function by MXNet name: relu, sigmoid,
// tanh, softrelu or softsign (and the op's log_sigmoid and mish). As in
// Gluon, the block is named after the function (relu0, tanh0, …).
type Activation struct {
	HybridBlock
	ActType string
}

// NewActivation makes an activation layer. An unknown name is reported,
// naming the block, on the first forward.
func NewActivation(act string) *Activation {
	if act == "" {
		panic(fmt.Errorf("nn.NewActivation: the activation name is empty (want relu, sigmoid, tanh, softrelu or softsign)"))
	}
	a := &Activation{ActType: act}
	a.Bind(a, act)
	return a
}

// HybridForward applies the activation.
func (a *Activation) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	nameOutput(F)
	return F.Activation(x, a.ActType)
}

// LeakyReLU is x for x > 0 and alpha*x below.
type LeakyReLU struct {
	HybridBlock
	Alpha float64
}

// NewLeakyReLU makes a leaky rectifier with slope alpha (>= 0) below 0.
func NewLeakyReLU(alpha float64) *LeakyReLU {
	if alpha < 0 {
		panic(fmt.Errorf("nn.NewLeakyReLU: alpha=%v must be at least 0", alpha))
	}
	l := &LeakyReLU{Alpha: alpha}
	l.Bind(l)
	return l
}

// HybridForward applies the leaky rectifier.
func (l *LeakyReLU) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	nameOutput(F)
	return F.LeakyReLU(x, "leaky", ops.Attr{Name: "slope", Value: l.Alpha})
}

// PReLUOptions are PReLU's options.
type PReLUOptions struct {
	// InChannels is the number of slopes: one per channel (axis 1 of the
	// data), or 0 or 1 for one slope shared by all.
	InChannels int
	AlphaInit  Initializer // default ConstantInit(0.25)
}

// PReLU is a leaky rectifier whose slope below 0, alpha, is learned: one
// per channel or one shared.
type PReLU struct {
	HybridBlock
	Alpha *Parameter
}

// NewPReLU makes a parametric rectifier.
func NewPReLU(opts ...PReLUOptions) *PReLU {
	o := OneOption("nn.NewPReLU", opts)
	if o.InChannels < 0 {
		panic(fmt.Errorf("nn.NewPReLU: InChannels=%d must not be negative", o.InChannels))
	}
	p := &PReLU{Alpha: NewParameter("alpha", ops.Shape{max(o.InChannels, 1)})}
	p.Alpha.Init = o.AlphaInit
	if p.Alpha.Init == nil {
		p.Alpha.Init = ConstantInit(0.25)
	}
	p.Bind(p)
	return p
}

// HybridForward applies the rectifier with the learned slopes.
func (p *PReLU) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	alpha := Param(F, p.Alpha)
	nameOutput(F)
	return F.PReLU(x, alpha)
}

// ELU is the exponential linear unit: x for x > 0, alpha*(e**x - 1) below.
type ELU struct {
	HybridBlock
	Alpha float64
}

// NewELU makes an exponential linear unit; Gluon's default alpha is 1.
func NewELU(alpha float64) *ELU {
	e := &ELU{Alpha: alpha}
	e.Bind(e)
	return e
}

// HybridForward applies the ELU.
func (e *ELU) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	nameOutput(F)
	return F.LeakyReLU(x, "elu", ops.Attr{Name: "slope", Value: e.Alpha})
}

// SELU is the scaled exponential linear unit, with MXNet's constants.
type SELU struct{ HybridBlock }

// NewSELU makes a scaled exponential linear unit.
func NewSELU() *SELU {
	s := &SELU{}
	s.Bind(s)
	return s
}

// HybridForward applies the SELU.
func (s *SELU) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	nameOutput(F)
	return F.LeakyReLU(x, "selu")
}

// GELU is the Gaussian error linear unit, 0.5*x*(1 + erf(x/sqrt(2))).
type GELU struct{ HybridBlock }

// NewGELU makes a Gaussian error linear unit.
func NewGELU() *GELU {
	g := &GELU{}
	g.Bind(g)
	return g
}

// HybridForward applies the GELU.
func (g *GELU) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	nameOutput(F)
	return F.LeakyReLU(x, "gelu")
}
