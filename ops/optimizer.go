package ops

import (
	"cmp"
	"math"
	"strings"
)

// Optimizer update ops, as scripts call them directly
// (mx.nd.sgd_mom_update(w, g, mom, out=w, lr=0.1)): each takes the weight,
// its gradient and the optimizer's states, updates the states in place
// (they are the op's Aux inputs, like BatchNorm's moving statistics) and
// returns the new weight, which MXNet's scripts write back over the weight
// with out=. Each update is element-wise: the gradient is first scaled by
// rescale_grad and clipped to [-clip_gradient, clip_gradient] when
// clip_gradient >= 0, with weight decay wd added where MXNet adds it. The
// ops are not differentiated (MXNet gives them no gradient); they are
// marked NoGrad.

// SGDUpdateAttrs are the attributes of sgd_update.
type SGDUpdateAttrs struct {
	LR           float64 `attr:"lr" doc:"the learning rate"`
	WD           float64 `attr:"wd" default:"0" doc:"weight decay"`
	RescaleGrad  float64 `attr:"rescale_grad" default:"1" doc:"the gradient's scale"`
	ClipGradient float64 `attr:"clip_gradient" default:"-1" doc:"clip the scaled gradient to [-clip_gradient, clip_gradient]; < 0: no clipping"`
	LazyUpdate   bool    `attr:"lazy_update" default:"True" doc:"for sparse gradients; dense arrays update every element"`
}

// SGDMomUpdateAttrs are the attributes of sgd_mom_update.
type SGDMomUpdateAttrs struct {
	LR           float64 `attr:"lr" doc:"the learning rate"`
	Momentum     float64 `attr:"momentum" default:"0" doc:"the momentum"`
	WD           float64 `attr:"wd" default:"0" doc:"weight decay"`
	RescaleGrad  float64 `attr:"rescale_grad" default:"1" doc:"the gradient's scale"`
	ClipGradient float64 `attr:"clip_gradient" default:"-1" doc:"clip the scaled gradient to [-clip_gradient, clip_gradient]; < 0: no clipping"`
	LazyUpdate   bool    `attr:"lazy_update" default:"True" doc:"for sparse gradients; dense arrays update every element"`
}

// NAGMomUpdateAttrs are the attributes of nag_mom_update.
type NAGMomUpdateAttrs struct {
	LR           float64 `attr:"lr" doc:"the learning rate"`
	Momentum     float64 `attr:"momentum" default:"0" doc:"the momentum"`
	WD           float64 `attr:"wd" default:"0" doc:"weight decay"`
	RescaleGrad  float64 `attr:"rescale_grad" default:"1" doc:"the gradient's scale"`
	ClipGradient float64 `attr:"clip_gradient" default:"-1" doc:"clip the scaled gradient to [-clip_gradient, clip_gradient]; < 0: no clipping"`
}

// AdamUpdateAttrs are the attributes of adam_update.
type AdamUpdateAttrs struct {
	LR           float64 `attr:"lr" doc:"the learning rate"`
	Beta1        float64 `attr:"beta1" default:"0.9" doc:"the decay of the mean"`
	Beta2        float64 `attr:"beta2" default:"0.999" doc:"the decay of the variance"`
	Epsilon      float64 `attr:"epsilon" default:"1e-08" doc:"added to the root of the variance"`
	WD           float64 `attr:"wd" default:"0" doc:"weight decay"`
	RescaleGrad  float64 `attr:"rescale_grad" default:"1" doc:"the gradient's scale"`
	ClipGradient float64 `attr:"clip_gradient" default:"-1" doc:"clip the decayed gradient to [-clip_gradient, clip_gradient]; < 0: no clipping"`
	LazyUpdate   bool    `attr:"lazy_update" default:"True" doc:"for sparse gradients; dense arrays update every element"`
}

// AdamWUpdateAttrs are the attributes of _adamw_update.
type AdamWUpdateAttrs struct {
	LR           float64 `attr:"lr" doc:"the learning rate"`
	Beta1        float64 `attr:"beta1" default:"0.9" doc:"the decay of the mean"`
	Beta2        float64 `attr:"beta2" default:"0.999" doc:"the decay of the variance"`
	Epsilon      float64 `attr:"epsilon" default:"1e-08" doc:"added to the root of the variance"`
	WD           float64 `attr:"wd" default:"0" doc:"decoupled weight decay"`
	Eta          float64 `attr:"eta" doc:"the schedule multiplier of the whole step"`
	ClipGradient float64 `attr:"clip_gradient" default:"-1" doc:"clip the scaled gradient to [-clip_gradient, clip_gradient]; < 0: no clipping"`
}

// RMSPropUpdateAttrs are the attributes of rmsprop_update.
type RMSPropUpdateAttrs struct {
	LR           float64 `attr:"lr" doc:"the learning rate"`
	Gamma1       float64 `attr:"gamma1" default:"0.95" doc:"the decay of the mean square"`
	Epsilon      float64 `attr:"epsilon" default:"1e-08" doc:"added to the mean square under the root"`
	WD           float64 `attr:"wd" default:"0" doc:"weight decay"`
	RescaleGrad  float64 `attr:"rescale_grad" default:"1" doc:"the gradient's scale"`
	ClipGradient float64 `attr:"clip_gradient" default:"-1" doc:"clip the decayed gradient to [-clip_gradient, clip_gradient]; < 0: no clipping"`
	ClipWeights  float64 `attr:"clip_weights" default:"-1" doc:"clip the new weight to [-clip_weights, clip_weights]; < 0: no clipping"`
}

// RMSPropAlexUpdateAttrs are the attributes of rmspropalex_update.
type RMSPropAlexUpdateAttrs struct {
	LR           float64 `attr:"lr" doc:"the learning rate"`
	Gamma1       float64 `attr:"gamma1" default:"0.95" doc:"the decay of the mean square and the mean"`
	Gamma2       float64 `attr:"gamma2" default:"0.9" doc:"the momentum of the step"`
	Epsilon      float64 `attr:"epsilon" default:"1e-08" doc:"added to the variance under the root"`
	WD           float64 `attr:"wd" default:"0" doc:"weight decay"`
	RescaleGrad  float64 `attr:"rescale_grad" default:"1" doc:"the gradient's scale"`
	ClipGradient float64 `attr:"clip_gradient" default:"-1" doc:"clip the decayed gradient to [-clip_gradient, clip_gradient]; < 0: no clipping"`
	ClipWeights  float64 `attr:"clip_weights" default:"-1" doc:"clip the new weight to [-clip_weights, clip_weights]; < 0: no clipping"`
}

// FtrlUpdateAttrs are the attributes of ftrl_update.
type FtrlUpdateAttrs struct {
	LR           float64 `attr:"lr" doc:"the learning rate"`
	Lamda1       float64 `attr:"lamda1" default:"0.01" doc:"the L1 regularisation"`
	Beta         float64 `attr:"beta" default:"1" doc:"the per-coordinate learning rate's offset"`
	WD           float64 `attr:"wd" default:"0" doc:"weight decay (L2)"`
	RescaleGrad  float64 `attr:"rescale_grad" default:"1" doc:"the gradient's scale"`
	ClipGradient float64 `attr:"clip_gradient" default:"-1" doc:"clip the scaled gradient to [-clip_gradient, clip_gradient]; < 0: no clipping"`
}

// FTMLUpdateAttrs are the attributes of ftml_update.
type FTMLUpdateAttrs struct {
	LR          float64 `attr:"lr" doc:"the learning rate"`
	Beta1       float64 `attr:"beta1" default:"0.6" doc:"the decay of z"`
	Beta2       float64 `attr:"beta2" default:"0.999" doc:"the decay of v"`
	Epsilon     float64 `attr:"epsilon" default:"1e-08" doc:"added to the root of v"`
	T           int     `attr:"t" doc:"the step number, from 1"`
	WD          float64 `attr:"wd" default:"0" doc:"weight decay"`
	RescaleGrad float64 `attr:"rescale_grad" default:"1" doc:"the gradient's scale"`
	ClipGrad    float64 `attr:"clip_grad" default:"-1" doc:"clip the decayed gradient to [-clip_grad, clip_grad]; < 0: no clipping"`
}

// LambPhase1Attrs are the attributes of lamb_update_phase1.
type LambPhase1Attrs struct {
	Beta1          float64 `attr:"beta1" default:"0.9" doc:"the decay of the mean"`
	Beta2          float64 `attr:"beta2" default:"0.999" doc:"the decay of the variance"`
	Epsilon        float64 `attr:"epsilon" default:"1e-06" doc:"added to the root of the variance"`
	T              int     `attr:"t" doc:"the step number, from 1"`
	BiasCorrection bool    `attr:"bias_correction" default:"True" doc:"divide the mean and variance by 1 - beta^t"`
	WD             float64 `attr:"wd" doc:"weight decay, added to the direction"`
	RescaleGrad    float64 `attr:"rescale_grad" default:"1" doc:"the gradient's scale"`
	ClipGradient   float64 `attr:"clip_gradient" default:"-1" doc:"clip the scaled gradient to [-clip_gradient, clip_gradient]; < 0: no clipping"`
}

// LambPhase2Attrs are the attributes of lamb_update_phase2.
type LambPhase2Attrs struct {
	LR         float64 `attr:"lr" doc:"the learning rate"`
	LowerBound float64 `attr:"lower_bound" default:"-1" doc:"the least weight norm r1 counts as; < 0: no bound"`
	UpperBound float64 `attr:"upper_bound" default:"-1" doc:"the largest weight norm r1 counts as; < 0: no bound"`
}

// SignSGDUpdateAttrs are the attributes of signsgd_update.
type SignSGDUpdateAttrs struct {
	LR           float64 `attr:"lr" doc:"the learning rate"`
	WD           float64 `attr:"wd" default:"0" doc:"weight decay"`
	RescaleGrad  float64 `attr:"rescale_grad" default:"1" doc:"the gradient's scale; the sign ignores it"`
	ClipGradient float64 `attr:"clip_gradient" default:"-1" doc:"ignored by the sign, as in MXNet"`
}

// SignumUpdateAttrs are the attributes of signum_update.
type SignumUpdateAttrs struct {
	LR           float64 `attr:"lr" doc:"the learning rate"`
	Momentum     float64 `attr:"momentum" default:"0" doc:"the momentum"`
	WD           float64 `attr:"wd" default:"0" doc:"weight decay, into the momentum"`
	RescaleGrad  float64 `attr:"rescale_grad" default:"1" doc:"the gradient's scale"`
	ClipGradient float64 `attr:"clip_gradient" default:"-1" doc:"clip the scaled gradient to [-clip_gradient, clip_gradient]; < 0: no clipping"`
	WDLH         float64 `attr:"wd_lh" default:"0" doc:"decoupled weight decay, applied to the weight"`
}

// clipGrad clips g to [-c, c] when c >= 0.
func clipGrad(g, c float64) float64 {
	if c >= 0 {
		return min(max(g, -c), c)
	}
	return g
}

// updateDef is one update op: its inputs after weight and grad are its
// states and then its scalars (inputs of one value, read only), and step
// returns the new weight of one element from the weight w, the gradient
// g, the element's states and the scalars in s; it updates the states.
type updateDef[A any] struct {
	name, doc string
	second    string // the second input's name; "" is grad
	result    string // what the output is; "" is the new weight
	states    []string
	scalars   []string
	positive  bool // draw the samples' inputs from [0.1, 1.5]
	step      func(a *A, w, g float64, s []float64) float64
	samples   []map[string]string
}

var opSGDUpdate, opSGDMomUpdate, opNAGMomUpdate, opAdamUpdate, opAdamWUpdate, opRMSPropUpdate, opRMSPropAlexUpdate,
	opLambPhase1, opLambPhase2, opFtrlUpdate, opFTMLUpdate, opSignSGDUpdate, opSignumUpdate *Op

func init() {
	opSGDUpdate = registerUpdate(updateDef[SGDUpdateAttrs]{
		name: "sgd_update", doc: "w - lr·(clip(rescale_grad·g) + wd·w).",
		step: func(a *SGDUpdateAttrs, w, g float64, _ []float64) float64 {
			return (1-a.LR*a.WD)*w - a.LR*clipGrad(a.RescaleGrad*g, a.ClipGradient)
		},
		samples: []map[string]string{{"lr": "0.1"}, {"lr": "0.5", "wd": "0.1", "rescale_grad": "2", "clip_gradient": "0.5"}},
	})
	opSGDMomUpdate = registerUpdate(updateDef[SGDMomUpdateAttrs]{
		name: "sgd_mom_update", states: []string{"mom"},
		doc: "mom = momentum·mom - lr·(wd·w + clip(rescale_grad·g)); the new weight is w + mom.",
		step: func(a *SGDMomUpdateAttrs, w, g float64, s []float64) float64 {
			s[0] = a.Momentum*s[0] - a.LR*a.WD*w - a.LR*clipGrad(a.RescaleGrad*g, a.ClipGradient)
			return w + s[0]
		},
		samples: []map[string]string{{"lr": "0.1", "momentum": "0.9"}, {"lr": "0.5", "momentum": "0.5", "wd": "0.1", "clip_gradient": "0.3"}},
	})
	opNAGMomUpdate = registerUpdate(updateDef[NAGMomUpdateAttrs]{
		name: "nag_mom_update", states: []string{"mom"},
		doc: "Nesterov's momentum: with d = clip(rescale_grad·g) + wd·w, mom = momentum·mom - lr·d and the new weight " +
			"is w + momentum·mom - lr·d (mom the new one).",
		step: func(a *NAGMomUpdateAttrs, w, g float64, s []float64) float64 {
			s[0] *= a.Momentum
			d := a.LR * (clipGrad(a.RescaleGrad*g, a.ClipGradient) + a.WD*w)
			out := w - s[0] + (a.Momentum+1)*(s[0]-d)
			s[0] -= d
			return out
		},
		samples: []map[string]string{{"lr": "0.1", "momentum": "0.9"}, {"lr": "0.5", "momentum": "0.5", "wd": "0.1", "clip_gradient": "0.3"}},
	})
	opAdamUpdate = registerUpdate(updateDef[AdamUpdateAttrs]{
		name: "adam_update", positive: true, states: []string{"mean", "var"},
		doc: "Adam, without bias correction (fold it into lr): with d = clip(rescale_grad·g + wd·w), mean = beta1·mean " +
			"+ (1-beta1)·d, var = beta2·var + (1-beta2)·d², and the new weight is w - lr·mean/(sqrt(var) + epsilon).",
		step: func(a *AdamUpdateAttrs, w, g float64, s []float64) float64 {
			d := clipGrad(a.RescaleGrad*g+a.WD*w, a.ClipGradient)
			s[0] = a.Beta1*s[0] + (1-a.Beta1)*d
			s[1] = a.Beta2*s[1] + (1-a.Beta2)*d*d
			return w - a.LR*s[0]/(math.Sqrt(s[1])+a.Epsilon)
		},
		samples: []map[string]string{{"lr": "0.01"}, {"lr": "0.1", "wd": "0.01", "clip_gradient": "0.5", "beta1": "0.8"}},
	})
	opRMSPropUpdate = registerUpdate(updateDef[RMSPropUpdateAttrs]{
		name: "rmsprop_update", positive: true, states: []string{"n"},
		doc: "RMSProp: with d = clip(rescale_grad·g + wd·w), n = (1-gamma1)·d² + gamma1·n and the new weight is " +
			"w - lr·d/sqrt(n + epsilon), clipped to [-clip_weights, clip_weights] when clip_weights >= 0.",
		step: func(a *RMSPropUpdateAttrs, w, g float64, s []float64) float64 {
			d := clipGrad(a.RescaleGrad*g+a.WD*w, a.ClipGradient)
			s[0] = (1-a.Gamma1)*d*d + a.Gamma1*s[0]
			return clipGrad(w-a.LR*d/math.Sqrt(s[0]+a.Epsilon), a.ClipWeights)
		},
		samples: []map[string]string{{"lr": "0.01"}, {"lr": "0.1", "wd": "0.01", "clip_gradient": "0.5", "clip_weights": "0.8"}},
	})
	opRMSPropAlexUpdate = registerUpdate(updateDef[RMSPropAlexUpdateAttrs]{
		name: "rmspropalex_update", positive: true, states: []string{"n", "g", "delta"},
		doc: "Graves' RMSProp: with d = clip(rescale_grad·g + wd·w), n = (1-gamma1)·d² + gamma1·n, g = (1-gamma1)·d + " +
			"gamma1·g, delta = gamma2·delta - lr·d/sqrt(n - g² + epsilon), and the new weight is w + delta, clipped to " +
			"[-clip_weights, clip_weights] when clip_weights >= 0.",
		step: func(a *RMSPropAlexUpdateAttrs, w, g float64, s []float64) float64 {
			d := clipGrad(a.RescaleGrad*g+a.WD*w, a.ClipGradient)
			s[0] = (1-a.Gamma1)*d*d + a.Gamma1*s[0]
			s[1] = (1-a.Gamma1)*d + a.Gamma1*s[1]
			s[2] = a.Gamma2*s[2] - a.LR*d/math.Sqrt(s[0]-s[1]*s[1]+a.Epsilon)
			return clipGrad(w+s[2], a.ClipWeights)
		},
		samples: []map[string]string{{"lr": "0.01"}, {"lr": "0.1", "wd": "0.01", "clip_gradient": "0.5", "clip_weights": "0.8"}},
	})
	opFtrlUpdate = registerUpdate(updateDef[FtrlUpdateAttrs]{
		name: "ftrl_update", positive: true, states: []string{"z", "n"},
		doc: "FTRL-proximal: with d = clip(rescale_grad·g), z += d - (sqrt(n + d²) - sqrt(n))·w/lr, n += d², and the " +
			"new weight is (sign(z)·lamda1 - z)/((beta + sqrt(n))/lr + wd) where |z| > lamda1, 0 elsewhere.",
		step: func(a *FtrlUpdateAttrs, w, g float64, s []float64) float64 {
			d := clipGrad(a.RescaleGrad*g, a.ClipGradient)
			s[0] += d - (math.Sqrt(s[1]+d*d)-math.Sqrt(s[1]))*w/a.LR
			s[1] += d * d
			if math.Abs(s[0]) <= a.Lamda1 {
				return 0
			}
			return (sign(s[0])*a.Lamda1 - s[0]) / ((a.Beta+math.Sqrt(s[1]))/a.LR + a.WD)
		},
		samples: []map[string]string{{"lr": "0.1"}, {"lr": "0.5", "lamda1": "0.1", "wd": "0.01", "clip_gradient": "0.5"}},
	})
	opFTMLUpdate = registerUpdate(updateDef[FTMLUpdateAttrs]{
		name: "ftml_update", positive: true, states: []string{"d", "v", "z"},
		doc: "FTML (Zheng and Kwok): with e = clip(rescale_grad·g + wd·w) at step t, v = beta2·v + (1-beta2)·e², " +
			"d' = (1-beta1^t)/lr·(sqrt(v/(1-beta2^t)) + epsilon), z = beta1·z + (1-beta1)·e - (d' - beta1·d)·w, d = d', " +
			"and the new weight is -z/d.",
		step: func(a *FTMLUpdateAttrs, w, g float64, s []float64) float64 {
			e := clipGrad(a.RescaleGrad*g+a.WD*w, a.ClipGrad)
			t := float64(a.T)
			s[1] = a.Beta2*s[1] + (1-a.Beta2)*e*e
			dt := (1 - math.Pow(a.Beta1, t)) / a.LR * (math.Sqrt(s[1]/(1-math.Pow(a.Beta2, t))) + a.Epsilon)
			s[2] = a.Beta1*s[2] + (1-a.Beta1)*e - (dt-a.Beta1*s[0])*w
			s[0] = dt
			return -s[2] / dt
		},
		samples: []map[string]string{{"lr": "0.1", "t": "1"}, {"lr": "0.05", "t": "3", "wd": "0.01", "clip_grad": "0.5"}},
	})
	opLambPhase1 = registerUpdate(updateDef[LambPhase1Attrs]{
		name: "lamb_update_phase1", positive: true, states: []string{"mean", "var"}, result: "the direction g",
		doc: "LAMB's first phase: with d = clip(rescale_grad·grad), mean = beta1·mean + (1-beta1)·d, var = " +
			"beta2·var + (1-beta2)·d², and g = mean'/(sqrt(var') + epsilon) + wd·w, mean' and var' divided by " +
			"1 - beta1^t and 1 - beta2^t with bias_correction.",
		step: func(a *LambPhase1Attrs, w, g float64, s []float64) float64 {
			d := clipGrad(a.RescaleGrad*g, a.ClipGradient)
			s[0] = a.Beta1*s[0] + (1-a.Beta1)*d
			s[1] = a.Beta2*s[1] + (1-a.Beta2)*d*d
			m, v := s[0], s[1]
			if a.BiasCorrection {
				m /= 1 - math.Pow(a.Beta1, float64(a.T))
				v /= 1 - math.Pow(a.Beta2, float64(a.T))
			}
			return m/(math.Sqrt(v)+a.Epsilon) + a.WD*w
		},
		samples: []map[string]string{{"t": "1", "wd": "0.01"}, {"t": "3", "wd": "0", "bias_correction": "False", "clip_gradient": "0.5"}},
	})
	opLambPhase2 = registerUpdate(updateDef[LambPhase2Attrs]{
		name: "lamb_update_phase2", second: "g", scalars: []string{"r1", "r2"}, positive: true,
		doc: "LAMB's second phase: w - lr·(r1/r2)·g, r1 the weight's norm (bounded by lower_bound and upper_bound " +
			"when they are >= 0) and r2 the norm of lamb_update_phase1's g; the ratio is 1 when either is 0.",
		step: func(a *LambPhase2Attrs, w, g float64, s []float64) float64 {
			r1, r2 := s[0], s[1]
			if a.LowerBound >= 0 {
				r1 = max(r1, a.LowerBound)
			}
			if a.UpperBound >= 0 {
				r1 = min(r1, a.UpperBound)
			}
			lr := a.LR
			if r1 != 0 && r2 != 0 {
				lr *= r1 / r2
			}
			return w - lr*g
		},
		samples: []map[string]string{{"lr": "0.1"}, {"lr": "0.5", "lower_bound": "0.3", "upper_bound": "0.6"}},
	})
	opSignSGDUpdate = registerUpdate(updateDef[SignSGDUpdateAttrs]{
		name: "signsgd_update", doc: "(1 - lr·wd)·w - lr·sign(g).",
		step: func(a *SignSGDUpdateAttrs, w, g float64, _ []float64) float64 {
			return (1-a.LR*a.WD)*w - a.LR*sign(g)
		},
		samples: []map[string]string{{"lr": "0.1"}, {"lr": "0.5", "wd": "0.1"}},
	})
	opSignumUpdate = registerUpdate(updateDef[SignumUpdateAttrs]{
		name: "signum_update", states: []string{"mom"},
		doc: "Signum: mom = momentum·mom - (1-momentum)·(wd·w + clip(rescale_grad·g)) and the new weight is " +
			"(1 - lr·wd_lh)·w + lr·sign(mom).",
		step: func(a *SignumUpdateAttrs, w, g float64, s []float64) float64 {
			s[0] = a.Momentum*s[0] - (1-a.Momentum)*a.WD*w - (1-a.Momentum)*clipGrad(a.RescaleGrad*g, a.ClipGradient)
			return (1-a.LR*a.WDLH)*w + a.LR*sign(s[0])
		},
		samples: []map[string]string{{"lr": "0.1", "momentum": "0.9"}, {"lr": "0.5", "momentum": "0.5", "wd": "0.1", "wd_lh": "0.01", "clip_gradient": "0.3"}},
	})
	opAdamWUpdate = registerUpdate(updateDef[AdamWUpdateAttrs]{
		name: "_adamw_update", states: []string{"mean", "var"}, scalars: []string{"rescale_grad"}, positive: true,
		doc: "AdamW, decoupled weight decay: with d = clip(rescale_grad·g), mean = beta1·mean + (1-beta1)·d, var = " +
			"beta2·var + (1-beta2)·d², and the new weight is w - eta·(lr·mean/(sqrt(var) + epsilon) + wd·w). " +
			"rescale_grad is an input (1,); when it is 0, infinite or NaN nothing is updated and the weight is " +
			"returned as it was.",
		step: func(a *AdamWUpdateAttrs, w, g float64, s []float64) float64 {
			r := s[2]
			if r == 0 || math.IsInf(r, 0) || math.IsNaN(r) {
				return w
			}
			d := clipGrad(r*g, a.ClipGradient)
			s[0] = a.Beta1*s[0] + (1-a.Beta1)*d
			s[1] = a.Beta2*s[1] + (1-a.Beta2)*d*d
			return w - a.Eta*(a.LR*s[0]/(math.Sqrt(s[1])+a.Epsilon)+a.WD*w)
		},
		samples: []map[string]string{{"lr": "0.01", "eta": "1"}, {"lr": "0.1", "eta": "0.5", "wd": "0.01", "clip_gradient": "0.5"}},
	})
}

// registerUpdate registers an optimizer update op. Its states are updated
// in place.
func registerUpdate[A any](u updateDef[A]) *Op {
	inputs := append([]string{"weight", cmp.Or(u.second, "grad")}, u.states...)
	inputs = append(inputs, u.scalars...)
	ns := len(u.states)
	var aux []int
	for i := range u.states {
		aux = append(aux, 2+i)
	}
	var samples []Sample
	for _, attrs := range u.samples {
		shapes := make([]Shape, len(inputs))
		for i := range shapes {
			shapes[i] = Shape{2, 3}
			if i >= 2+ns {
				shapes[i] = Shape{1}
			}
		}
		s := Sample{Attrs: attrs, Inputs: shapes}
		if u.positive {
			// Variances and squared sums are not negative.
			s.Low, s.High = 0.1, 1.5
		}
		samples = append(samples, s)
	}
	doc := "Optimizer update: " + u.doc
	if ns > 0 {
		doc += " The states (" + strings.Join(u.states, ", ") + ") are updated in place."
	}
	return Register(Def[A]{
		Name: u.name, Kind: "other",
		Doc:    doc + " The result is " + cmp.Or(u.result, "the new weight") + ". Not differentiable.",
		Inputs: inputs, Aux: aux,
		Shape: func(_ *A, in []Shape) ([]Shape, error) {
			w := in[0]
			n := 2 + ns
			for i := n; i < len(in); i++ {
				if len(in[i]) == 0 {
					in[i] = Shape{1}
				}
				if in[i].Size() != 1 && in[i].Known() {
					return nil, Errorf("%s %v must hold one value", inputs[i], in[i])
				}
			}
			for i := 1; i < n; i++ {
				if len(in[i]) == 0 {
					in[i] = w.Clone()
				}
				m, ok := mergeShapes(w, in[i])
				if !ok {
					return nil, Errorf("%s %v must have the weight's shape %v", inputs[i], in[i], in[0])
				}
				w = m
			}
			for i := range n {
				copy(in[i], w)
			}
			return []Shape{w.Clone()}, nil
		},
		DType: func(_ *A, in []DType) ([]DType, error) {
			d := Unknown
			for i, t := range in {
				if t == Unknown {
					continue
				}
				if t != Float32 && t != Float64 {
					return nil, Errorf("%s is %v; updates need float32 or float64", inputs[i], t)
				}
				if d != Unknown && t != d {
					return nil, Errorf("%s is %v but weight is %v; use Cast to convert one of them", inputs[i], t, d)
				}
				d = t
			}
			return []DType{d}, nil
		},
		Kernel: func(_ *Env, a *A, in, out []Value) error {
			w, g := in[0].Float64s(), in[1].Float64s()
			states := make([][]float64, ns)
			for k := range states {
				states[k] = in[2+k].Float64s()
			}
			y := make([]float64, len(w))
			s := make([]float64, len(in)-2)
			for k := ns; k < len(s); k++ {
				s[k] = in[2+k].Float64s()[0]
			}
			for i := range w {
				for k, st := range states {
					s[k] = st[i]
				}
				y[i] = u.step(a, w[i], g[i], s)
				for k, st := range states {
					st[i] = s[k]
				}
			}
			for _, k := range aux {
				CopyData(in[k].Data, FromFloat64s(in[k].DType, states[k-2]))
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			return nil
		},
		NoGrad:  true,
		Samples: samples,
	})
}

// update calls an update op with lr and attrs.
func (f F) update(op *Op, lr float64, attrs []Attr, in ...Tensor) Tensor {
	return f.call1(op, append([]Attr{{"lr", lr}}, attrs...), in...)
}

// SGDUpdate returns weight after a step of SGD (sgd_update); attrs may set
// wd, rescale_grad and clip_gradient.
func (f F) SGDUpdate(weight, grad Tensor, lr float64, attrs ...Attr) Tensor {
	return f.update(opSGDUpdate, lr, attrs, weight, grad)
}

// SGDMomUpdate returns weight after a step of SGD with momentum, updating
// mom in place (sgd_mom_update).
func (f F) SGDMomUpdate(weight, grad, mom Tensor, lr float64, attrs ...Attr) Tensor {
	return f.update(opSGDMomUpdate, lr, attrs, weight, grad, mom)
}

// NAGMomUpdate returns weight after a step of Nesterov's accelerated
// gradient, updating mom in place (nag_mom_update).
func (f F) NAGMomUpdate(weight, grad, mom Tensor, lr float64, attrs ...Attr) Tensor {
	return f.update(opNAGMomUpdate, lr, attrs, weight, grad, mom)
}

// AdamUpdate returns weight after a step of Adam, updating mean and
// variance in place (adam_update).
func (f F) AdamUpdate(weight, grad, mean, variance Tensor, lr float64, attrs ...Attr) Tensor {
	return f.update(opAdamUpdate, lr, attrs, weight, grad, mean, variance)
}

// AdamWUpdate returns weight after a step of AdamW, updating mean and
// variance in place (_adamw_update); rescaleGrad holds one value, and eta
// must be in attrs.
func (f F) AdamWUpdate(weight, grad, mean, variance, rescaleGrad Tensor, lr float64, attrs ...Attr) Tensor {
	return f.update(opAdamWUpdate, lr, attrs, weight, grad, mean, variance, rescaleGrad)
}

// RMSPropUpdate returns weight after a step of RMSProp, updating n in
// place (rmsprop_update).
func (f F) RMSPropUpdate(weight, grad, n Tensor, lr float64, attrs ...Attr) Tensor {
	return f.update(opRMSPropUpdate, lr, attrs, weight, grad, n)
}

// RMSPropAlexUpdate returns weight after a step of Graves' RMSProp,
// updating n, g and delta in place (rmspropalex_update).
func (f F) RMSPropAlexUpdate(weight, grad, n, g, delta Tensor, lr float64, attrs ...Attr) Tensor {
	return f.update(opRMSPropAlexUpdate, lr, attrs, weight, grad, n, g, delta)
}

// FtrlUpdate returns weight after a step of FTRL, updating z and n in
// place (ftrl_update).
func (f F) FtrlUpdate(weight, grad, z, n Tensor, lr float64, attrs ...Attr) Tensor {
	return f.update(opFtrlUpdate, lr, attrs, weight, grad, z, n)
}

// FTMLUpdate returns weight after step t of FTML, updating d, v and z in
// place (ftml_update).
func (f F) FTMLUpdate(weight, grad, d, v, z Tensor, lr float64, t int, attrs ...Attr) Tensor {
	return f.update(opFTMLUpdate, lr, append([]Attr{{"t", t}}, attrs...), weight, grad, d, v, z)
}

// LambUpdatePhase1 returns LAMB's direction for weight at step t,
// updating mean and variance in place (lamb_update_phase1); wd must be in
// attrs.
func (f F) LambUpdatePhase1(weight, grad, mean, variance Tensor, t int, attrs ...Attr) Tensor {
	return f.call1(opLambPhase1, append([]Attr{{"t", t}}, attrs...), weight, grad, mean, variance)
}

// LambUpdatePhase2 returns weight after LAMB's step along g, scaled by
// the norms r1 (of the weight) and r2 (of g) (lamb_update_phase2).
func (f F) LambUpdatePhase2(weight, g, r1, r2 Tensor, lr float64, attrs ...Attr) Tensor {
	return f.update(opLambPhase2, lr, attrs, weight, g, r1, r2)
}

// SignSGDUpdate returns weight after a step of signSGD (signsgd_update).
func (f F) SignSGDUpdate(weight, grad Tensor, lr float64, attrs ...Attr) Tensor {
	return f.update(opSignSGDUpdate, lr, attrs, weight, grad)
}

// SignumUpdate returns weight after a step of Signum, updating mom in
// place (signum_update).
func (f F) SignumUpdate(weight, grad, mom Tensor, lr float64, attrs ...Attr) Tensor {
	return f.update(opSignumUpdate, lr, attrs, weight, grad, mom)
}
