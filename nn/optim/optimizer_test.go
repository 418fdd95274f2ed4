package optim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn/optim"
)

// refStep is a hand-written update rule: it changes w in place from the
// rescaled gradient g at update t (1-based), keeping its own state.
type refStep func(w, g []float64, t int)

var (
	optW0    = []float64{1, -2, 0.5, 3}
	optGrads = [][]float64{{0.4, -1, 2, 0.1}, {-0.2, 0.5, 1, 0.3}, {1, 1, -3, 0}, {0.3, -0.6, 0.2, 5}}
)

func clipRef(g, c float64) float64 {
	if c > 0 {
		return math.Max(-c, math.Min(c, g))
	}
	return g
}

func optimizerCases() []struct {
	name     string
	opt      optim.Optimizer
	lr, wd   float64
	rescale  float64
	ref      func() refStep
	floatTol float64
} {
	type c = struct {
		name     string
		opt      optim.Optimizer
		lr, wd   float64
		rescale  float64
		ref      func() refStep
		floatTol float64
	}
	return []c{
		{name: "SGD", opt: optim.NewSGD(optim.SGDOptions{LR: 0.1}), lr: 0.1, rescale: 1, ref: func() refStep {
			return func(w, g []float64, t int) {
				for i := range w {
					w[i] -= 0.1 * g[i]
				}
			}
		}},
		{name: "SGD/weight decay, rescale", opt: optim.NewSGD(optim.SGDOptions{LR: 0.1, WD: 0.01}), lr: 0.1, wd: 0.01, rescale: 0.5, ref: func() refStep {
			return func(w, g []float64, t int) {
				for i := range w {
					w[i] -= 0.1 * (g[i] + 0.01*w[i])
				}
			}
		}},
		{name: "SGD/momentum", opt: optim.NewSGD(optim.SGDOptions{LR: 0.1, Momentum: 0.9, WD: 0.01}), lr: 0.1, wd: 0.01, rescale: 1, ref: func() refStep {
			v := make([]float64, 4)
			return func(w, g []float64, t int) {
				for i := range w {
					v[i] = 0.9*v[i] - 0.1*(g[i]+0.01*w[i])
					w[i] += v[i]
				}
			}
		}},
		{name: "SGD/Nesterov", opt: optim.NewSGD(optim.SGDOptions{LR: 0.1, Momentum: 0.9, WD: 0.01, Nesterov: true}), lr: 0.1, wd: 0.01, rescale: 1, ref: func() refStep {
			m := make([]float64, 4)
			return func(w, g []float64, t int) {
				for i := range w {
					gg := g[i] + 0.01*w[i]
					m[i] = 0.9*m[i] + gg
					w[i] -= 0.1 * (gg + 0.9*m[i])
				}
			}
		}},
		{name: "SGD/clip", opt: optim.NewSGD(optim.SGDOptions{LR: 0.1, ClipGradient: 0.5}), lr: 0.1, rescale: 1, ref: func() refStep {
			return func(w, g []float64, t int) {
				for i := range w {
					w[i] -= 0.1 * clipRef(g[i], 0.5)
				}
			}
		}},
		{name: "Adam", opt: optim.NewAdam(optim.AdamOptions{LR: 0.01, WD: 0.1}), lr: 0.01, wd: 0.1, rescale: 1, ref: func() refStep {
			m, v := make([]float64, 4), make([]float64, 4)
			return func(w, g []float64, t int) {
				for i := range w {
					gg := g[i] + 0.1*w[i]
					m[i] = 0.9*m[i] + 0.1*gg
					v[i] = 0.999*v[i] + 0.001*gg*gg
					mhat := m[i] / (1 - math.Pow(0.9, float64(t)))
					vhat := v[i] / (1 - math.Pow(0.999, float64(t)))
					// MXNet's form: ε is added to √v before the bias correction.
					w[i] -= 0.01 * mhat / (math.Sqrt(vhat) + 1e-8/math.Sqrt(1-math.Pow(0.999, float64(t))))
				}
			}
		}, floatTol: 1e-5},
		{name: "Adam/clip", opt: optim.NewAdam(optim.AdamOptions{LR: 0.01, Beta1: 0.5, Beta2: 0.9, Epsilon: 1e-3, ClipGradient: 0.5}), lr: 0.01, rescale: 2, ref: func() refStep {
			m, v := make([]float64, 4), make([]float64, 4)
			return func(w, g []float64, t int) {
				lrT := 0.01 * math.Sqrt(1-math.Pow(0.9, float64(t))) / (1 - math.Pow(0.5, float64(t)))
				for i := range w {
					gg := clipRef(2*g[i], 0.5)
					m[i] = 0.5*m[i] + 0.5*gg
					v[i] = 0.9*v[i] + 0.1*gg*gg
					w[i] -= lrT * m[i] / (math.Sqrt(v[i]) + 1e-3)
				}
			}
		}, floatTol: 1e-5},
		{name: "AdamW", opt: optim.NewAdamW(optim.AdamOptions{LR: 0.01, WD: 0.1}), lr: 0.01, wd: 0.1, rescale: 1, ref: func() refStep {
			m, v := make([]float64, 4), make([]float64, 4)
			return func(w, g []float64, t int) {
				lrT := 0.01 * math.Sqrt(1-math.Pow(0.999, float64(t))) / (1 - math.Pow(0.9, float64(t)))
				for i := range w {
					m[i] = 0.9*m[i] + 0.1*g[i]
					v[i] = 0.999*v[i] + 0.001*g[i]*g[i]
					w[i] = w[i] - 0.01*0.1*w[i] - lrT*m[i]/(math.Sqrt(v[i])+1e-8)
				}
			}
		}, floatTol: 1e-5},
		{name: "RMSProp", opt: optim.NewRMSProp(optim.RMSPropOptions{LR: 0.01, WD: 0.05}), lr: 0.01, wd: 0.05, rescale: 1, ref: func() refStep {
			n := make([]float64, 4)
			return func(w, g []float64, t int) {
				for i := range w {
					gg := g[i] + 0.05*w[i]
					n[i] = 0.9*n[i] + 0.1*gg*gg
					w[i] -= 0.01 * gg / math.Sqrt(n[i]+1e-8)
				}
			}
		}, floatTol: 1e-5},
		{name: "RMSProp/centered", opt: optim.NewRMSProp(optim.RMSPropOptions{LR: 0.01, Gamma1: 0.8, Gamma2: 0.7, Centered: true}), lr: 0.01, rescale: 1, ref: func() refStep {
			n, gb, d := make([]float64, 4), make([]float64, 4), make([]float64, 4)
			return func(w, g []float64, t int) {
				for i := range w {
					n[i] = 0.8*n[i] + 0.2*g[i]*g[i]
					gb[i] = 0.8*gb[i] + 0.2*g[i]
					d[i] = 0.7*d[i] - 0.01*g[i]/math.Sqrt(n[i]-gb[i]*gb[i]+1e-8)
					w[i] += d[i]
				}
			}
		}, floatTol: 1e-5},
		{name: "AdaGrad", opt: optim.NewAdaGrad(optim.AdaGradOptions{LR: 0.1, WD: 0.01}), lr: 0.1, wd: 0.01, rescale: 1, ref: func() refStep {
			h := make([]float64, 4)
			return func(w, g []float64, t int) {
				for i := range w {
					h[i] += g[i] * g[i]
					w[i] -= 0.1 * (g[i]/math.Sqrt(h[i]+1e-7) + 0.01*w[i])
				}
			}
		}, floatTol: 1e-5},
	}
}

// Each optimizer's update rule, for a few steps, against a hand-written
// reference, in float64 and float32.
func TestOptimizerUpdateRules(t *testing.T) {
	for _, c := range optimizerCases() {
		for _, f32 := range []bool{false, true} {
			name := c.name
			if f32 {
				name += "/float32"
			}
			t.Run(name, func(t *testing.T) {
				want := append([]float64(nil), optW0...)
				ref := c.ref()
				var w *eager.NDArray
				if f32 {
					w = eager.Array(float32s(optW0), 4)
				} else {
					w = eager.Array(append([]float64(nil), optW0...), 4)
				}
				state := c.opt.CreateState(w)
				for step, g := range optGrads {
					scaled := make([]float64, len(g))
					for i := range g {
						scaled[i] = g[i] * c.rescale
					}
					if !strings.Contains(c.name, "clip") {
						ref(want, scaled, step+1)
					} else {
						ref(want, g, step+1) // the clip cases rescale themselves
					}
					grad := eager.Array(append([]float64(nil), g...), 4)
					if f32 {
						grad = eager.Array(float32s(g), 4)
					}
					if err := c.opt.Update(w, grad, state, optim.UpdateArgs{LR: c.lr, WD: c.wd, RescaleGrad: c.rescale, T: step + 1}); err != nil {
						t.Fatal(err)
					}
					rtol := 1e-12
					if f32 {
						rtol = max(1e-6, c.floatTol)
					}
					if d := optest.FirstDiff(w.Float64s(), want, rtol, rtol); d >= 0 {
						t.Fatalf("step %d: %v, want %v", step+1, w.Float64s(), want)
					}
				}
			})
		}
	}
}

func float32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// Adam's bias correction makes its first step about lr·sign(g), whatever
// the gradient's size.
func TestAdamFirstStepIsLR(t *testing.T) {
	opt := optim.NewAdam(optim.AdamOptions{LR: 0.01})
	w := eager.Array([]float64{0, 0, 0}, 3)
	s := opt.CreateState(w)
	if err := opt.Update(w, eager.Array([]float64{0.1, -5, 100}, 3), s, optim.UpdateArgs{LR: 0.01, T: 1}); err != nil {
		t.Fatal(err)
	}
	if d := optest.FirstDiff(w.Float64s(), []float64{-0.01, 0.01, -0.01}, 1e-4, 0); d >= 0 {
		t.Errorf("first step %v", w.Float64s())
	}
}

// AdamW's decay is decoupled: with a zero gradient the weight shrinks by
// lr·wd·w, while Adam's coupled decay takes a full adaptive step.
func TestAdamWDecoupledDecay(t *testing.T) {
	run := func(opt optim.Optimizer) []float64 {
		w := eager.Array([]float64{2, -4}, 2)
		s := opt.CreateState(w)
		if err := opt.Update(w, eager.Array([]float64{0, 0}, 2), s, optim.UpdateArgs{LR: 0.1, WD: 0.5, T: 1}); err != nil {
			t.Fatal(err)
		}
		return w.Float64s()
	}
	if got := run(optim.NewAdamW(optim.AdamOptions{})); optest.FirstDiff(got, []float64{2 * 0.95, -4 * 0.95}, 1e-12, 0) >= 0 {
		t.Errorf("AdamW: %v", got)
	}
	if got := run(optim.NewAdam(optim.AdamOptions{})); optest.FirstDiff(got, []float64{1.9, -3.9}, 1e-6, 0) >= 0 {
		t.Errorf("Adam: %v", got)
	}
}

func TestOptimizerDefaults(t *testing.T) {
	for _, c := range []struct {
		opt optim.Optimizer
		lr  float64
	}{
		{optim.NewSGD(optim.SGDOptions{}), 0.01},
		{optim.NewAdam(optim.AdamOptions{}), 0.001},
		{optim.NewAdamW(optim.AdamOptions{}), 0.001},
		{optim.NewRMSProp(optim.RMSPropOptions{}), 0.001},
		{optim.NewAdaGrad(optim.AdaGradOptions{}), 0.01},
	} {
		if got := c.opt.LearningRate(); got != c.lr {
			t.Errorf("%T: default lr %v, want %v", c.opt, got, c.lr)
		}
		c.opt.SetLearningRate(0.5)
		if got := c.opt.LearningRate(); got != 0.5 {
			t.Errorf("%T: lr %v after SetLearningRate(0.5)", c.opt, got)
		}
	}
	a := optim.NewAdam(optim.AdamOptions{}).(*optim.Adam)
	if a.Beta1 != 0.9 || a.Beta2 != 0.999 || a.Epsilon != 1e-8 {
		t.Errorf("Adam defaults %+v", a)
	}
	r := optim.NewRMSProp(optim.RMSPropOptions{}).(*optim.RMSProp)
	if r.Gamma1 != 0.9 || r.Epsilon != 1e-8 {
		t.Errorf("RMSProp defaults %+v", r)
	}
	if g := optim.NewAdaGrad(optim.AdaGradOptions{}).(*optim.AdaGrad); g.Epsilon != 1e-7 {
		t.Errorf("AdaGrad epsilon %v", g.Epsilon)
	}
}

func TestOptimizerErrors(t *testing.T) {
	opt := optim.NewAdam(optim.AdamOptions{})
	w := eager.Zeros(3)
	if err := opt.Update(w, eager.Zeros(4), opt.CreateState(w), optim.UpdateArgs{}); err == nil || !strings.Contains(err.Error(), "disagree") {
		t.Errorf("shape mismatch: %v", err)
	}
	if err := opt.Update(w, eager.Zeros(3), opt.CreateState(eager.Zeros(5)), optim.UpdateArgs{}); err == nil || !strings.Contains(err.Error(), "state") {
		t.Errorf("wrong state: %v", err)
	}
	iw := eager.Array([]int32{1, 2}, 2)
	if err := opt.Update(iw, eager.Array([]int32{1, 2}, 2), nil, optim.UpdateArgs{}); err == nil || !strings.Contains(err.Error(), "float32 or float64") {
		t.Errorf("int weight: %v", err)
	}
}

// The optimizer's learning rate follows its schedule as the update count
// advances.
func TestOptimizerSchedule(t *testing.T) {
	opt := optim.NewSGD(optim.SGDOptions{LR: 1, Schedule: optim.FactorSchedule(2, 0.5, 0)})
	var got []float64
	for i := 0; i < 5; i++ {
		opt.SetNumUpdate(opt.NumUpdate() + 1)
		got = append(got, opt.LearningRate())
	}
	if d := optest.FirstDiff(got, []float64{1, 1, 0.5, 0.5, 0.25}, 1e-12, 0); d >= 0 {
		t.Errorf("lr by update: %v", got)
	}
}

func TestSchedules(t *testing.T) {
	cos := func(n, max int, base, final float64) float64 {
		return final + (base-final)*(1+math.Cos(math.Pi*float64(n)/float64(max)))/2
	}
	for _, c := range []struct {
		name  string
		s     optim.LRSchedule
		steps []int
		want  []float64
	}{
		{"factor", optim.FactorSchedule(3, 0.1, 0), []int{0, 1, 3, 4, 6, 7, 10}, []float64{1, 1, 1, 0.1, 0.1, 0.01, 0.001}},
		{"factor/stop", optim.FactorSchedule(1, 0.5, 0.2), []int{1, 2, 3, 4, 100}, []float64{1, 0.5, 0.25, 0.2, 0.2}},
		{"multi-factor", optim.MultiFactorSchedule([]int{2, 5}, 0.5), []int{0, 2, 3, 5, 6, 50}, []float64{1, 1, 0.5, 0.5, 0.25, 0.25}},
		{"cosine", optim.CosineSchedule(10, 0.1), []int{0, 5, 7, 10, 20}, []float64{1, 0.55, cos(7, 10, 1, 0.1), 0.1, 0.1}},
		{"warmup then constant", optim.WarmupSchedule(4, 0, nil), []int{0, 1, 2, 4, 9}, []float64{0, 0.25, 0.5, 1, 1}},
		{"warmup then cosine", optim.WarmupSchedule(2, 0.5, optim.CosineSchedule(4, 0)), []int{0, 1, 2, 4, 6, 7},
			[]float64{0.5, 0.75, 1, 0.5, 0, 0}},
		{"warmup then factor", optim.WarmupSchedule(2, 0, optim.FactorSchedule(1, 0.5, 0)), []int{1, 2, 3, 4}, []float64{0.5, 1, 1, 0.5}},
	} {
		var got []float64
		for _, n := range c.steps {
			got = append(got, c.s.LR(1, n))
		}
		if d := optest.FirstDiff(got, c.want, 1e-12, 1e-15); d >= 0 {
			t.Errorf("%s: at steps %v got %v, want %v", c.name, c.steps, got, c.want)
		}
	}
}
