package ops

import (
	"math"
	"math/rand/v2"
	"sort"
)

// MXNet's samplers beyond _random_uniform and _random_normal (create.go):
// _random_NAME draws an array of a given shape from one distribution,
// _random_NAME_like one shaped like its input, and _sample_NAME one batch
// of draws per element of its parameter arrays. The distributions are
// uniform, normal, gamma, exponential, poisson, negative_binomial and
// generalized_negative_binomial, as MXNet parameterizes them; and
// _random_randint draws integers. No gradient flows into any of them.
// _sample_multinomial draws categories (its log probabilities have a
// gradient) and _shuffle permutes an array's first axis.

// distribution is a family of random draws with named parameters.
type distribution struct {
	name   string
	params []string // the parameters' names in the attributes (_random_, _like)
	inputs []string // the parameters' names as _sample_ inputs
	doc    string
	check  func(p []float64) error // nil: any parameters
	draw   func(r *rand.Rand, p []float64) float64
}

var distributions = []*distribution{
	{name: "uniform", params: []string{"low", "high"}, inputs: []string{"low", "high"},
		doc:  "the uniform distribution on [low, high)",
		draw: func(r *rand.Rand, p []float64) float64 { return p[0] + (p[1]-p[0])*r.Float64() }},
	{name: "normal", params: []string{"loc", "scale"}, inputs: []string{"mu", "sigma"},
		doc:  "the normal distribution with mean loc and standard deviation scale",
		draw: func(r *rand.Rand, p []float64) float64 { return p[0] + p[1]*r.NormFloat64() }},
	{name: "gamma", params: []string{"alpha", "beta"}, inputs: []string{"alpha", "beta"},
		doc:   "the gamma distribution with shape alpha and scale beta",
		check: positive("alpha", "beta"),
		draw:  func(r *rand.Rand, p []float64) float64 { return drawGamma(r, p[0]) * p[1] }},
	{name: "exponential", params: []string{"lam"}, inputs: []string{"lam"},
		doc:   "the exponential distribution with rate lam",
		check: positive("lam"),
		draw:  func(r *rand.Rand, p []float64) float64 { return r.ExpFloat64() / p[0] }},
	{name: "poisson", params: []string{"lam"}, inputs: []string{"lam"},
		doc:   "the Poisson distribution with mean lam",
		check: nonNegative("lam"),
		draw:  func(r *rand.Rand, p []float64) float64 { return drawPoisson(r, p[0]) }},
	{name: "negative_binomial", params: []string{"k", "p"}, inputs: []string{"k", "p"},
		doc: "the negative binomial distribution: the failures before the k-th success of trials that succeed " +
			"with probability p",
		check: func(p []float64) error {
			if !(p[0] > 0) || !(p[1] > 0 && p[1] <= 1) {
				return Errorf("k=%v must be positive and p=%v in (0, 1]", p[0], p[1])
			}
			return nil
		},
		draw: func(r *rand.Rand, p []float64) float64 {
			return drawPoisson(r, drawGamma(r, p[0])*(1-p[1])/p[1])
		}},
	{name: "generalized_negative_binomial", params: []string{"mu", "alpha"}, inputs: []string{"mu", "alpha"},
		doc:   "the generalized negative binomial distribution with mean mu and dispersion alpha (Poisson when alpha is 0)",
		check: nonNegative("mu", "alpha"),
		draw: func(r *rand.Rand, p []float64) float64 {
			lam := p[0]
			if p[1] != 0 {
				lam = drawGamma(r, 1/p[1]) * p[1] * p[0]
			}
			return drawPoisson(r, lam)
		}},
}

func positive(names ...string) func(p []float64) error {
	return func(p []float64) error {
		for i, v := range p {
			if !(v > 0) {
				return Errorf("%s=%v must be positive", names[i], v)
			}
		}
		return nil
	}
}

func nonNegative(names ...string) func(p []float64) error {
	return func(p []float64) error {
		for i, v := range p {
			if !(v >= 0) {
				return Errorf("%s=%v must not be negative", names[i], v)
			}
		}
		return nil
	}
}

func distributionNamed(name string) *distribution {
	for _, d := range distributions {
		if d.name == name {
			return d
		}
	}
	panic("ops: no distribution " + name)
}

// drawGamma draws from the gamma distribution of shape alpha and scale 1
// (Marsaglia and Tsang; alpha < 1 by boosting to alpha + 1).
func drawGamma(r *rand.Rand, alpha float64) float64 {
	if alpha < 1 {
		u := r.Float64()
		return drawGamma(r, alpha+1) * math.Pow(u, 1/alpha)
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// drawPoisson draws from the Poisson distribution of mean lam: by
// multiplying uniforms for small means, by rejection from a Lorentzian
// (Numerical Recipes' method) for large ones.
func drawPoisson(r *rand.Rand, lam float64) float64 {
	if lam < 12 {
		limit, k, t := math.Exp(-lam), 0.0, r.Float64()
		for t > limit {
			k++
			t *= r.Float64()
		}
		return k
	}
	sq := math.Sqrt(2 * lam)
	logLam := math.Log(lam)
	lg, _ := math.Lgamma(lam + 1)
	g := lam*logLam - lg
	for {
		var y, em float64
		for {
			y = math.Tan(math.Pi * r.Float64())
			em = sq*y + lam
			if em >= 0 {
				break
			}
		}
		em = math.Floor(em)
		lgEm, _ := math.Lgamma(em + 1)
		if r.Float64() <= 0.9*(1+y*y)*math.Exp(em*logLam-lgEm-g) {
			return em
		}
	}
}

// The attributes of the _random_ ops: the distribution's parameters, then
// the result's shape, ctx and dtype.

// RandomGammaAttrs are the attributes of _random_gamma.
type RandomGammaAttrs struct {
	Alpha float64 `attr:"alpha" default:"1.0" doc:"the shape"`
	Beta  float64 `attr:"beta" default:"1.0" doc:"the scale"`
	Shape Tuple   `attr:"shape" default:"()"`
	Ctx   string  `attr:"ctx" default:""`
	DType DType   `attr:"dtype" default:"None" doc:"float32 (None) or float64"`
}

// RandomExponentialAttrs are the attributes of _random_exponential.
type RandomExponentialAttrs struct {
	Lam   float64 `attr:"lam" default:"1.0" doc:"the rate"`
	Shape Tuple   `attr:"shape" default:"()"`
	Ctx   string  `attr:"ctx" default:""`
	DType DType   `attr:"dtype" default:"None" doc:"float32 (None) or float64"`
}

// RandomPoissonAttrs are the attributes of _random_poisson.
type RandomPoissonAttrs struct {
	Lam   float64 `attr:"lam" default:"1.0" doc:"the mean"`
	Shape Tuple   `attr:"shape" default:"()"`
	Ctx   string  `attr:"ctx" default:""`
	DType DType   `attr:"dtype" default:"None" doc:"float32 (None) or float64"`
}

// RandomNegBinomialAttrs are the attributes of _random_negative_binomial.
type RandomNegBinomialAttrs struct {
	K     int     `attr:"k" default:"1" doc:"the successes to wait for"`
	P     float64 `attr:"p" default:"1.0" doc:"the probability of success"`
	Shape Tuple   `attr:"shape" default:"()"`
	Ctx   string  `attr:"ctx" default:""`
	DType DType   `attr:"dtype" default:"None" doc:"float32 (None) or float64"`
}

// RandomGenNegBinomialAttrs are the attributes of _random_generalized_negative_binomial.
type RandomGenNegBinomialAttrs struct {
	Mu    float64 `attr:"mu" default:"1.0" doc:"the mean"`
	Alpha float64 `attr:"alpha" default:"1.0" doc:"the dispersion"`
	Shape Tuple   `attr:"shape" default:"()"`
	Ctx   string  `attr:"ctx" default:""`
	DType DType   `attr:"dtype" default:"None" doc:"float32 (None) or float64"`
}

// RandIntAttrs are the attributes of _random_randint.
type RandIntAttrs struct {
	Low   int    `attr:"low" doc:"the smallest value"`
	High  int    `attr:"high" doc:"one past the largest value"`
	Shape Tuple  `attr:"shape" default:"()"`
	Ctx   string `attr:"ctx" default:""`
	DType DType  `attr:"dtype" default:"None" doc:"int32 (None) or int64"`
}

// The attributes of the _like ops: the distribution's parameters.

// UniformLikeAttrs are the attributes of _random_uniform_like.
type UniformLikeAttrs struct {
	Low  float64 `attr:"low" default:"0.0"`
	High float64 `attr:"high" default:"1.0"`
}

// NormalLikeAttrs are the attributes of _random_normal_like.
type NormalLikeAttrs struct {
	Loc   float64 `attr:"loc" default:"0.0"`
	Scale float64 `attr:"scale" default:"1.0"`
}

// GammaLikeAttrs are the attributes of _random_gamma_like.
type GammaLikeAttrs struct {
	Alpha float64 `attr:"alpha" default:"1.0" doc:"the shape"`
	Beta  float64 `attr:"beta" default:"1.0" doc:"the scale"`
}

// ExponentialLikeAttrs are the attributes of _random_exponential_like.
type ExponentialLikeAttrs struct {
	Lam float64 `attr:"lam" default:"1.0" doc:"the rate"`
}

// PoissonLikeAttrs are the attributes of _random_poisson_like.
type PoissonLikeAttrs struct {
	Lam float64 `attr:"lam" default:"1.0" doc:"the mean"`
}

// NegBinomialLikeAttrs are the attributes of _random_negative_binomial_like.
type NegBinomialLikeAttrs struct {
	K int     `attr:"k" default:"1" doc:"the successes to wait for"`
	P float64 `attr:"p" default:"1.0" doc:"the probability of success"`
}

// GenNegBinomialLikeAttrs are the attributes of _random_generalized_negative_binomial_like.
type GenNegBinomialLikeAttrs struct {
	Mu    float64 `attr:"mu" default:"1.0" doc:"the mean"`
	Alpha float64 `attr:"alpha" default:"1.0" doc:"the dispersion"`
}

// SampleMultinomialAttrs are the attributes of _sample_multinomial.
type SampleMultinomialAttrs struct {
	Shape   Tuple `attr:"shape" default:"()" doc:"the draws per distribution: the result's shape is data's without its last axis, followed by this"`
	GetProb bool  `attr:"get_prob" default:"False" doc:"also return the log probability of each draw, through which the gradient flows"`
	DType   DType `attr:"dtype" default:"int32" doc:"the dtype of the drawn indices"`
}

// UniqueZipfianAttrs are the attributes of _sample_unique_zipfian.
type UniqueZipfianAttrs struct {
	RangeMax int   `attr:"range_max" doc:"the number of classes"`
	Shape    Tuple `attr:"shape" default:"()" doc:"(batch size, distinct classes to draw for each)"`
}

// MultiSampleAttrs are the attributes of the _sample_ ops.
type MultiSampleAttrs struct {
	Shape Tuple `attr:"shape" default:"()" doc:"the draws per element of the parameters: the result's shape is theirs followed by this"`
	DType DType `attr:"dtype" default:"None" doc:"the result's dtype: float32 or float64; None takes the parameters'"`
}

func (a *RandomGammaAttrs) params() []float64          { return []float64{a.Alpha, a.Beta} }
func (a *RandomExponentialAttrs) params() []float64    { return []float64{a.Lam} }
func (a *RandomPoissonAttrs) params() []float64        { return []float64{a.Lam} }
func (a *RandomNegBinomialAttrs) params() []float64    { return []float64{float64(a.K), a.P} }
func (a *RandomGenNegBinomialAttrs) params() []float64 { return []float64{a.Mu, a.Alpha} }
func (a *UniformLikeAttrs) params() []float64          { return []float64{a.Low, a.High} }
func (a *NormalLikeAttrs) params() []float64           { return []float64{a.Loc, a.Scale} }
func (a *GammaLikeAttrs) params() []float64            { return []float64{a.Alpha, a.Beta} }
func (a *ExponentialLikeAttrs) params() []float64      { return []float64{a.Lam} }
func (a *PoissonLikeAttrs) params() []float64          { return []float64{a.Lam} }
func (a *NegBinomialLikeAttrs) params() []float64      { return []float64{float64(a.K), a.P} }
func (a *GenNegBinomialLikeAttrs) params() []float64   { return []float64{a.Mu, a.Alpha} }

func (a *RandomGammaAttrs) out() (Tuple, DType)          { return a.Shape, a.DType }
func (a *RandomExponentialAttrs) out() (Tuple, DType)    { return a.Shape, a.DType }
func (a *RandomPoissonAttrs) out() (Tuple, DType)        { return a.Shape, a.DType }
func (a *RandomNegBinomialAttrs) out() (Tuple, DType)    { return a.Shape, a.DType }
func (a *RandomGenNegBinomialAttrs) out() (Tuple, DType) { return a.Shape, a.DType }

// randomParams are the attributes of a _random_ or _like op.
type randomParams interface{ params() []float64 }

// randomShaped are the attributes of a _random_ op.
type randomShaped interface {
	randomParams
	out() (Tuple, DType)
}

var opRandomGamma, opRandomExponential, opRandomPoisson, opRandomNegBinomial, opRandomGenNegBinomial, opRandomRandInt *Op

var opRandomUniformLike, opRandomNormalLike, opRandomGammaLike, opRandomExponentialLike, opRandomPoissonLike,
	opRandomNegBinomialLike, opRandomGenNegBinomialLike *Op

var opSampleUniform, opSampleNormal, opSampleGamma, opSampleExponential, opSamplePoisson, opSampleNegBinomial,
	opSampleGenNegBinomial, opSampleMultinomial, opShuffle, opSampleUniqueZipfian *Op

func init() {
	opRandomGamma = Register(randomDef[RandomGammaAttrs]("gamma"))
	opRandomExponential = Register(randomDef[RandomExponentialAttrs]("exponential"))
	opRandomPoisson = Register(randomDef[RandomPoissonAttrs]("poisson"))
	opRandomNegBinomial = Register(randomDef[RandomNegBinomialAttrs]("negative_binomial"))
	opRandomGenNegBinomial = Register(randomDef[RandomGenNegBinomialAttrs]("generalized_negative_binomial"))

	opRandomRandInt = Register(Def[RandIntAttrs]{
		Name: "_random_randint", Aliases: []string{"random_randint"}, Kind: "other",
		Doc: "Integers drawn uniformly from [low, high), int32 (or int64) by default.",
		Check: func(a *RandIntAttrs) error {
			if a.High <= a.Low {
				return Errorf("high=%d must be above low=%d", a.High, a.Low)
			}
			return checkShapeAttr(a.Shape)
		},
		Shape: func(a *RandIntAttrs, _ []Shape) ([]Shape, error) { return []Shape{Shape(a.Shape).Clone()}, nil },
		DType: func(a *RandIntAttrs, _ []DType) ([]DType, error) {
			switch a.DType {
			case Unknown:
				return []DType{Int32}, nil
			case Int32, Int64:
				return []DType{a.DType}, nil
			}
			return nil, Errorf("dtype %v: randint gives int32 or int64", a.DType)
		},
		Kernel: func(env *Env, a *RandIntAttrs, _, out []Value) error {
			xs := make([]float64, out[0].Shape.Size())
			for i := range xs {
				xs[i] = float64(a.Low + int(env.Rand.Int64N(int64(a.High-a.Low))))
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, xs))
			return nil
		},
		NoGrad: true, Random: true,
		Samples: []Sample{{Attrs: map[string]string{"low": "-3", "high": "5", "shape": "(2, 3)"}},
			{Attrs: map[string]string{"low": "0", "high": "2", "shape": "(4,)", "dtype": "int64"}}},
	})

	opRandomUniformLike = Register(randomLikeDef[UniformLikeAttrs]("uniform"))
	opRandomNormalLike = Register(randomLikeDef[NormalLikeAttrs]("normal"))
	opRandomGammaLike = Register(randomLikeDef[GammaLikeAttrs]("gamma"))
	opRandomExponentialLike = Register(randomLikeDef[ExponentialLikeAttrs]("exponential"))
	opRandomPoissonLike = Register(randomLikeDef[PoissonLikeAttrs]("poisson"))
	opRandomNegBinomialLike = Register(randomLikeDef[NegBinomialLikeAttrs]("negative_binomial"))
	opRandomGenNegBinomialLike = Register(randomLikeDef[GenNegBinomialLikeAttrs]("generalized_negative_binomial"))

	opSampleUniform = Register(sampleDef("uniform"))
	opSampleNormal = Register(sampleDef("normal"))
	opSampleGamma = Register(sampleDef("gamma"))
	opSampleExponential = Register(sampleDef("exponential"))
	opSamplePoisson = Register(sampleDef("poisson"))
	opSampleNegBinomial = Register(sampleDef("negative_binomial"))
	opSampleGenNegBinomial = Register(sampleDef("generalized_negative_binomial"))

	opSampleMultinomial = Register(Def[SampleMultinomialAttrs]{
		Name: "_sample_multinomial", Aliases: []string{"sample_multinomial"}, Kind: "other",
		Doc: "Draws category indices from the discrete distributions along data's last axis (probabilities that " +
			"sum to 1): prod(shape) draws per distribution. With get_prob, a second output holds the log " +
			"probability of each draw, and the gradient of data is the gradient of those log probabilities.",
		Inputs:     []string{"data"},
		NumOutputs: func(a *SampleMultinomialAttrs) int { return 1 + boolInt(a.GetProb) },
		Check:      func(a *SampleMultinomialAttrs) error { return checkShapeAttr(a.Shape) },
		Shape: func(a *SampleMultinomialAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			if len(d) < 1 {
				return nil, Errorf("data must have at least 1 dim")
			}
			out := append(d[:len(d)-1].Clone(), a.Shape...)
			if len(out) == 0 {
				out = Shape{1}
			}
			if a.GetProb {
				return []Shape{out, out.Clone()}, nil
			}
			return []Shape{out}, nil
		},
		DType: func(a *SampleMultinomialAttrs, in []DType) ([]DType, error) {
			if _, err := floatData(in[0]); err != nil {
				return nil, err
			}
			switch a.DType {
			case Uint8, Int32, Float32, Float64:
			default:
				return nil, Errorf("dtype %v: the indices are uint8, int32, float32 or float64", a.DType)
			}
			if a.GetProb {
				return []DType{a.DType, in[0]}, nil
			}
			return []DType{a.DType}, nil
		},
		Kernel: func(env *Env, a *SampleMultinomialAttrs, in, out []Value) error {
			k := in[0].Shape[len(in[0].Shape)-1]
			p := in[0].Float64s()
			n := len(p) / max(k, 1)
			m := out[0].Shape.Size() / max(n, 1)
			idx, logp := make([]float64, n*m), make([]float64, n*m)
			cum := make([]float64, k)
			for i := range n {
				acc := 0.0
				for c := range k {
					acc += p[i*k+c]
					cum[c] = acc
				}
				for j := range m {
					u := env.Rand.Float64()
					c := min(sort.SearchFloat64s(cum, u), k-1) // the first c with cum[c] >= u
					idx[i*m+j], logp[i*m+j] = float64(c), math.Log(p[i*k+c])
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, idx))
			if a.GetProb {
				CopyData(out[1].Data, FromFloat64s(out[1].DType, logp))
			}
			return nil
		},
		Grad: func(f F, a *SampleMultinomialAttrs, in, out, g []Tensor) []Tensor {
			if !a.GetProb {
				return []Tensor{nil}
			}
			// d log p[s] / dp = 1/p[s] at the drawn index s.
			data := in[0]
			ds := data.Shape()
			k := ds[len(ds)-1]
			n := ds.Size() / max(k, 1)
			m := out[0].Shape().Size() / max(n, 1)
			s := f.Reshape(out[0], n, m)
			ps := f.Pick(f.BroadcastTo(f.Reshape(data, n, 1, k), n, m, k), s, Axis(-1))
			w := f.Reshape(f.Div(f.Reshape(g[1], n, m), ps), n, m, 1)
			oh := f.OneHot(s, k, Attr{"dtype", data.DType()})
			return []Tensor{f.Reshape(f.Sum(f.Mul(oh, w), Axis(1)), ds...)}
		},
		Random: true,
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}}, Low: 0.1, High: 1},
			{Attrs: map[string]string{"shape": "(4,)", "get_prob": "True"}, Inputs: []Shape{{3}}, Low: 0.1, High: 1},
			{Attrs: map[string]string{"shape": "(2, 2)", "get_prob": "True", "dtype": "float32"}, Inputs: []Shape{{2, 1, 4}}, Low: 0.1, High: 1},
		},
	})

	opSampleUniqueZipfian = Register(Def[UniqueZipfianAttrs]{
		Name: "_sample_unique_zipfian", Kind: "other",
		Doc: "For each of shape[0] rows, shape[1] distinct classes in [0, range_max) drawn from an approximately " +
			"Zipfian (log-uniform) distribution, c = round(range_max^u) - 1 for u uniform in [0, 1), as candidate " +
			"samplers for sampled softmax use: the first output holds the classes, the second, of shape " +
			"(shape[0],), the number of draws each row took. Both are int64.",
		Outputs: 2,
		Check: func(a *UniqueZipfianAttrs) error {
			if len(a.Shape) != 2 || a.Shape[0] < 0 || a.Shape[1] < 0 {
				return Errorf("shape %v must be (batch size, samples per row)", a.Shape)
			}
			if a.Shape[1] > a.RangeMax {
				return Errorf("shape[1]=%d distinct samples cannot come from range_max=%d classes", a.Shape[1], a.RangeMax)
			}
			return nil
		},
		Shape: func(a *UniqueZipfianAttrs, _ []Shape) ([]Shape, error) {
			return []Shape{Shape(a.Shape).Clone(), {a.Shape[0]}}, nil
		},
		DType: func(*UniqueZipfianAttrs, []DType) ([]DType, error) { return []DType{Int64, Int64}, nil },
		Kernel: func(env *Env, a *UniqueZipfianAttrs, _, out []Value) error {
			rows, m := a.Shape[0], a.Shape[1]
			logRange := math.Log(float64(a.RangeMax))
			samples, tries := make([]float64, rows*m), make([]float64, rows)
			for i := range rows {
				seen := make(map[int]bool, m)
				for len(seen) < m {
					c := int(math.Round(math.Exp(env.Rand.Float64()*logRange))) - 1
					if !seen[c] {
						samples[i*m+len(seen)] = float64(c)
						seen[c] = true
					}
					tries[i]++
				}
			}
			CopyData(out[0].Data, FromFloat64s(Int64, samples))
			CopyData(out[1].Data, FromFloat64s(Int64, tries))
			return nil
		},
		NoGrad: true, Random: true,
		Samples: []Sample{{Attrs: map[string]string{"range_max": "20", "shape": "(3, 5)"}}},
	})

	opShuffle = Register(Def[NoAttrs]{
		Name: "_shuffle", Aliases: []string{"shuffle"}, Kind: "other",
		Doc: "data with its first axis randomly permuted (the elements of 1-D data, the rows of a matrix, …). " +
			"MXNet defines no gradient; it is taken as zero.",
		Inputs: []string{"data"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			if len(in[0]) < 1 {
				return nil, Errorf("data must have at least 1 dim")
			}
			return []Shape{in[0].Clone()}, nil
		},
		Kernel: func(env *Env, _ *NoAttrs, in, out []Value) error {
			s := in[0].Shape
			rows, row := s[0], s[1:].Size()
			idx := make([]int, 0, s.Size())
			for _, r := range env.Rand.Perm(rows) {
				for j := range row {
					idx = append(idx, r*row+j)
				}
			}
			return moveElems(out[0].Data, in[0].Data, idx, false)
		},
		NoGrad: true, Random: true,
		Samples: []Sample{{Inputs: []Shape{{5}}}, {Inputs: []Shape{{4, 2, 3}}}},
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// draws fills v with draws from d with the parameters p.
func (d *distribution) fill(env *Env, v Value, p []float64) error {
	return fillRandom(v, func() float64 { return d.draw(env.Rand, p) })
}

// randomDef defines _random_NAME, which draws an array of the shape the
// attributes give.
func randomDef[A any, PA interface {
	*A
	randomShaped
}](name string) Def[A] {
	d := distributionNamed(name)
	return Def[A]{
		Name: "_random_" + name, Aliases: []string{"random_" + name}, Kind: "other",
		Doc: "Samples from " + d.doc + ".",
		Check: func(a *A) error {
			if d.check != nil {
				if err := d.check(PA(a).params()); err != nil {
					return err
				}
			}
			s, _ := PA(a).out()
			return checkShapeAttr(s)
		},
		Shape: func(a *A, _ []Shape) ([]Shape, error) {
			s, _ := PA(a).out()
			return []Shape{Shape(s).Clone()}, nil
		},
		DType: func(a *A, _ []DType) ([]DType, error) {
			_, t := PA(a).out()
			if t == Unknown {
				t = Float32
			}
			return randomDType(t)
		},
		Kernel: func(env *Env, a *A, _, out []Value) error { return d.fill(env, out[0], PA(a).params()) },
		NoGrad: true, Random: true,
		Samples: []Sample{{Attrs: map[string]string{"shape": "(2, 3)"}},
			{Attrs: map[string]string{"shape": "(4,)", "dtype": "float64"}}},
	}
}

// randomLikeDef defines _random_NAME_like, which draws an array shaped like its
// input, of its dtype.
func randomLikeDef[A any, PA interface {
	*A
	randomParams
}](name string) Def[A] {
	d := distributionNamed(name)
	return Def[A]{
		Name: "_random_" + name + "_like", Kind: "other",
		Doc:    "Samples from " + d.doc + ", an array with the shape and dtype of data (whose values are not read).",
		Inputs: []string{"data"},
		Check: func(a *A) error {
			if d.check != nil {
				return d.check(PA(a).params())
			}
			return nil
		},
		Shape:  func(_ *A, in []Shape) ([]Shape, error) { return []Shape{in[0].Clone()}, nil },
		DType:  func(_ *A, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(env *Env, a *A, _, out []Value) error { return d.fill(env, out[0], PA(a).params()) },
		NoGrad: true, Random: true,
		Samples: []Sample{{Inputs: []Shape{{2, 3}}}},
	}
}

// sampleDef defines _sample_NAME: for each element of the parameter
// arrays (one shape), prod(shape) draws with those parameters.
func sampleDef(name string) Def[MultiSampleAttrs] {
	d := distributionNamed(name)
	params := d.inputs[0]
	if len(d.inputs) == 2 {
		params += " and " + d.inputs[1]
	}
	low := 0.5 // parameters every distribution accepts
	return Def[MultiSampleAttrs]{
		Name: "_sample_" + name, Aliases: []string{"sample_" + name}, Kind: "other",
		Doc: "Samples from " + d.doc + ", with " + params + " given as arrays of one shape: the result has their " +
			"shape followed by the attribute shape, prod(shape) draws for each element of the parameters. " +
			"A parameter outside the distribution's range is an error.",
		Inputs: d.inputs,
		Check:  func(a *MultiSampleAttrs) error { return checkShapeAttr(a.Shape) },
		Shape: func(a *MultiSampleAttrs, in []Shape) ([]Shape, error) {
			s := in[0]
			for i := 1; i < len(in); i++ {
				m, ok := mergeShapes(s, in[i])
				if !ok {
					return nil, Errorf("%s %v and %s %v must have one shape", d.inputs[0], in[0], d.inputs[i], in[i])
				}
				s = m
			}
			for i := range in {
				copy(in[i], s)
			}
			return []Shape{append(s.Clone(), a.Shape...)}, nil
		},
		DType: func(a *MultiSampleAttrs, in []DType) ([]DType, error) {
			t := in[0]
			for _, u := range in[1:] {
				if u != Unknown && t != Unknown && u != t {
					return nil, Errorf("the parameters have dtypes %v and %v", t, u)
				}
				if t == Unknown {
					t = u
				}
			}
			if _, err := floatData(t); err != nil {
				return nil, err
			}
			if a.DType != Unknown {
				return randomDType(a.DType)
			}
			return []DType{t}, nil
		},
		Kernel: func(env *Env, a *MultiSampleAttrs, in, out []Value) error {
			ps := make([][]float64, len(in))
			for i, v := range in {
				ps[i] = v.Float64s()
			}
			per := Shape(a.Shape).Size()
			xs := make([]float64, out[0].Shape.Size())
			p := make([]float64, len(in))
			for j := range ps[0] {
				for i := range ps {
					p[i] = ps[i][j]
				}
				if d.check != nil {
					if err := d.check(p); err != nil {
						return Errorf("element %d of the parameters: %v", j, err)
					}
				}
				for k := range per {
					xs[j*per+k] = d.draw(env.Rand, p)
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, xs))
			return nil
		},
		NoGrad: true, Random: true,
		Samples: []Sample{
			{Attrs: map[string]string{"shape": "(3,)"}, Inputs: sampleShapes(len(d.inputs), Shape{2}), Low: low, High: 1},
			{Inputs: sampleShapes(len(d.inputs), Shape{2, 2}), Low: low, High: 1},
			{Attrs: map[string]string{"shape": "(2, 2)", "dtype": "float64"}, Inputs: sampleShapes(len(d.inputs), Shape{3}), Low: low, High: 1},
		},
	}
}

func sampleShapes(n int, s Shape) []Shape {
	out := make([]Shape, n)
	for i := range out {
		out[i] = s.Clone()
	}
	return out
}

// RandomGamma samples an array of the given shape from the gamma
// distribution of shape alpha and scale beta.
func (f F) RandomGamma(alpha, beta float64, shape ...int) Tensor {
	return f.callA(opRandomGamma, &RandomGammaAttrs{Alpha: alpha, Beta: beta, Shape: shape, DType: Unknown})
}

// RandomExponential samples an array of the given shape from the
// exponential distribution of rate lam.
func (f F) RandomExponential(lam float64, shape ...int) Tensor {
	return f.callA(opRandomExponential, &RandomExponentialAttrs{Lam: lam, Shape: shape, DType: Unknown})
}

// RandomPoisson samples an array of the given shape from the Poisson
// distribution of mean lam.
func (f F) RandomPoisson(lam float64, shape ...int) Tensor {
	return f.callA(opRandomPoisson, &RandomPoissonAttrs{Lam: lam, Shape: shape, DType: Unknown})
}

// RandomNegativeBinomial samples an array of the given shape: the failures
// before the k-th success of trials succeeding with probability p.
func (f F) RandomNegativeBinomial(k int, p float64, shape ...int) Tensor {
	return f.callA(opRandomNegBinomial, &RandomNegBinomialAttrs{K: k, P: p, Shape: shape, DType: Unknown})
}

// RandomGeneralizedNegativeBinomial samples an array of the given shape
// with mean mu and dispersion alpha.
func (f F) RandomGeneralizedNegativeBinomial(mu, alpha float64, shape ...int) Tensor {
	return f.callA(opRandomGenNegBinomial, &RandomGenNegBinomialAttrs{Mu: mu, Alpha: alpha, Shape: shape, DType: Unknown})
}

// RandomRandInt samples int32 integers from [low, high) (attribute dtype:
// int64).
func (f F) RandomRandInt(low, high int, shape []int, attrs ...Attr) Tensor {
	return f.call1(opRandomRandInt, append([]Attr{{"low", low}, {"high", high}, {"shape", Tuple(shape)}}, attrs...))
}

// RandomUniformLike samples an array shaped like x from the uniform
// distribution on [low, high).
func (f F) RandomUniformLike(x Tensor, low, high float64) Tensor {
	return f.callA(opRandomUniformLike, &UniformLikeAttrs{Low: low, High: high}, x)
}

// RandomNormalLike samples an array shaped like x from the normal
// distribution of mean loc and standard deviation scale.
func (f F) RandomNormalLike(x Tensor, loc, scale float64) Tensor {
	return f.callA(opRandomNormalLike, &NormalLikeAttrs{Loc: loc, Scale: scale}, x)
}

// RandomGammaLike samples an array shaped like x from the gamma distribution.
func (f F) RandomGammaLike(x Tensor, alpha, beta float64) Tensor {
	return f.callA(opRandomGammaLike, &GammaLikeAttrs{Alpha: alpha, Beta: beta}, x)
}

// RandomExponentialLike samples an array shaped like x from the
// exponential distribution of rate lam.
func (f F) RandomExponentialLike(x Tensor, lam float64) Tensor {
	return f.callA(opRandomExponentialLike, &ExponentialLikeAttrs{Lam: lam}, x)
}

// RandomPoissonLike samples an array shaped like x from the Poisson
// distribution of mean lam.
func (f F) RandomPoissonLike(x Tensor, lam float64) Tensor {
	return f.callA(opRandomPoissonLike, &PoissonLikeAttrs{Lam: lam}, x)
}

// RandomNegativeBinomialLike samples an array shaped like x from the
// negative binomial distribution.
func (f F) RandomNegativeBinomialLike(x Tensor, k int, p float64) Tensor {
	return f.callA(opRandomNegBinomialLike, &NegBinomialLikeAttrs{K: k, P: p}, x)
}

// RandomGeneralizedNegativeBinomialLike samples an array shaped like x
// from the generalized negative binomial distribution.
func (f F) RandomGeneralizedNegativeBinomialLike(x Tensor, mu, alpha float64) Tensor {
	return f.callA(opRandomGenNegBinomialLike, &GenNegBinomialLikeAttrs{Mu: mu, Alpha: alpha}, x)
}

// SampleUniform draws prod(shape) samples (attribute shape) from the
// uniform distribution on [low[i], high[i]) for each element i.
func (f F) SampleUniform(low, high Tensor, attrs ...Attr) Tensor {
	return f.call1(opSampleUniform, attrs, low, high)
}

// SampleNormal draws from the normal distributions of means mu and
// standard deviations sigma, element by element.
func (f F) SampleNormal(mu, sigma Tensor, attrs ...Attr) Tensor {
	return f.call1(opSampleNormal, attrs, mu, sigma)
}

// SampleGamma draws from the gamma distributions of shapes alpha and
// scales beta, element by element.
func (f F) SampleGamma(alpha, beta Tensor, attrs ...Attr) Tensor {
	return f.call1(opSampleGamma, attrs, alpha, beta)
}

// SampleExponential draws from the exponential distributions of rates lam.
func (f F) SampleExponential(lam Tensor, attrs ...Attr) Tensor {
	return f.call1(opSampleExponential, attrs, lam)
}

// SamplePoisson draws from the Poisson distributions of means lam.
func (f F) SamplePoisson(lam Tensor, attrs ...Attr) Tensor {
	return f.call1(opSamplePoisson, attrs, lam)
}

// SampleNegativeBinomial draws from the negative binomial distributions
// of parameters k and p, element by element.
func (f F) SampleNegativeBinomial(k, p Tensor, attrs ...Attr) Tensor {
	return f.call1(opSampleNegBinomial, attrs, k, p)
}

// SampleGeneralizedNegativeBinomial draws from the generalized negative
// binomial distributions of means mu and dispersions alpha.
func (f F) SampleGeneralizedNegativeBinomial(mu, alpha Tensor, attrs ...Attr) Tensor {
	return f.call1(opSampleGenNegBinomial, attrs, mu, alpha)
}

// SampleMultinomial draws category indices from the distributions along
// the last axis of probs (attributes shape, get_prob, dtype); with
// get_prob, the log probabilities of the draws come second.
func (f F) SampleMultinomial(probs Tensor, attrs ...Attr) []Tensor {
	return f.Invoke(opSampleMultinomial, mustAttrs(opSampleMultinomial, attrs), probs)
}

// Shuffle returns x with its first axis randomly permuted.
func (f F) Shuffle(x Tensor) Tensor { return f.callA(opShuffle, &NoAttrs{}, x) }

// SampleUniqueZipfian draws, for each of rows rows, n distinct classes in
// [0, rangeMax) from the log-uniform distribution; it returns them and the
// draws each row took.
func (f F) SampleUniqueZipfian(rangeMax, rows, n int) (samples, tries Tensor) {
	out := f.Invoke(opSampleUniqueZipfian, &UniqueZipfianAttrs{RangeMax: rangeMax, Shape: Tuple{rows, n}})
	return out[0], out[1]
}
