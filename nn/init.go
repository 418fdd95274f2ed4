package nn

import (
	"fmt"
	"math"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Initializer fills a parameter's array. As in MXNet, the initializers
// below treat parameters by their name's suffix: biases and betas start at
// zero, gammas at one, moving means at zero and moving variances at one;
// only weights get the initializer's own distribution.
type Initializer interface {
	Fill(name string, a *eager.NDArray) error
}

// byName applies MXNet's per-suffix rules, and weight to anything else.
func byName(name string, a *eager.NDArray, weight func(a *eager.NDArray) error) error {
	switch {
	case strings.HasSuffix(name, "bias"), strings.HasSuffix(name, "beta"), strings.HasSuffix(name, "moving_mean"), strings.HasSuffix(name, "running_mean"):
		return set(a, eager.F.ZerosLike(a))
	case strings.HasSuffix(name, "gamma"), strings.HasSuffix(name, "moving_var"), strings.HasSuffix(name, "running_var"):
		return set(a, eager.F.OnesLike(a))
	}
	return weight(a)
}

func set(dst *eager.NDArray, src ops.Tensor) error {
	s := src.(*eager.NDArray)
	if s.DType() != dst.DType() {
		s = s.AsType(dst.DType())
	}
	eager.CopyFrom(dst, s)
	return nil
}

type uniform struct{ scale float64 }

// Uniform draws weights from U(-scale, scale); MXNet's default is 0.07.
func Uniform(scale float64) Initializer { return uniform{scale} }

func (u uniform) Fill(name string, a *eager.NDArray) error {
	return byName(name, a, func(a *eager.NDArray) error {
		return set(a, eager.F.RandomUniform(-u.scale, u.scale, a.Shape(), ops.WithDType(floatOf(a))))
	})
}

type normal struct{ sigma float64 }

// Normal draws weights from N(0, sigma²).
func Normal(sigma float64) Initializer { return normal{sigma} }

func (n normal) Fill(name string, a *eager.NDArray) error {
	return byName(name, a, func(a *eager.NDArray) error {
		return set(a, eager.F.RandomNormal(0, n.sigma, a.Shape(), ops.WithDType(floatOf(a))))
	})
}

func floatOf(a *eager.NDArray) ops.DType {
	if a.DType() == ops.Float64 {
		return ops.Float64
	}
	return ops.Float32
}

type constInit struct{ value float64 }

// ConstantInit fills every element (weights and the rest) with value.
func ConstantInit(value float64) Initializer { return constInit{value} }

func (c constInit) Fill(_ string, a *eager.NDArray) error {
	return set(a, eager.F.Full(a.Shape(), c.value, ops.WithDType(a.DType())))
}

// Zero fills with zeros.
func Zero() Initializer { return constInit{0} }

// One fills with ones.
func One() Initializer { return constInit{1} }

// XavierOptions are Xavier's options: RandType "uniform" or "gaussian",
// FactorType "avg", "in" or "out", and Magnitude.
type XavierOptions struct {
	RandType   string
	FactorType string
	Magnitude  float64
}

type xavier struct{ XavierOptions }

// Xavier scales weights by their fan: with factor f (the average of fan-in
// and fan-out, or one of them), scale = sqrt(magnitude / f), drawn from
// U(-scale, scale) or N(0, scale²). Xavier() is MXNet's default
// (uniform, avg, 3).
func Xavier(opts ...XavierOptions) Initializer {
	o := OneOption("nn.Xavier", opts)
	if o.RandType == "" {
		o.RandType = "uniform"
	}
	if o.FactorType == "" {
		o.FactorType = "avg"
	}
	if o.Magnitude == 0 {
		o.Magnitude = 3
	}
	return xavier{o}
}

func (x xavier) Fill(name string, a *eager.NDArray) error {
	return byName(name, a, func(a *eager.NDArray) error {
		s := a.Shape()
		if len(s) < 2 {
			return fmt.Errorf("Xavier needs a weight of at least 2 dims, got %v", s)
		}
		hw := 1
		for _, d := range s[2:] {
			hw *= d
		}
		fanIn, fanOut := float64(s[1]*hw), float64(s[0]*hw)
		var factor float64
		switch x.FactorType {
		case "avg":
			factor = (fanIn + fanOut) / 2
		case "in":
			factor = fanIn
		case "out":
			factor = fanOut
		default:
			return fmt.Errorf("Xavier: unknown factor type %q (want avg, in or out)", x.FactorType)
		}
		scale := math.Sqrt(x.Magnitude / factor)
		switch x.RandType {
		case "uniform":
			return set(a, eager.F.RandomUniform(-scale, scale, s, ops.WithDType(floatOf(a))))
		case "gaussian":
			return set(a, eager.F.RandomNormal(0, scale, s, ops.WithDType(floatOf(a))))
		}
		return fmt.Errorf("Xavier: unknown random type %q (want uniform or gaussian)", x.RandType)
	})
}

// MSRAPrelu is He initialisation for (P)ReLU networks: Gaussian Xavier
// with magnitude 2/(1+slope²) and the given factor type ("avg" by default
// in MXNet; use "in" for He et al.).
func MSRAPrelu(factorType string, slope float64) Initializer {
	if factorType == "" {
		factorType = "avg"
	}
	return xavier{XavierOptions{RandType: "gaussian", FactorType: factorType, Magnitude: 2 / (1 + slope*slope)}}
}
