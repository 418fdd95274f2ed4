package nn_test

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// layer is what every hybrid layer offers through its HybridBlock.
type layer interface {
	Forward(x ops.Tensor) ops.Tensor
	Hybridize(opts ...nn.HybridizeOptions)
	Initialize(opts ...nn.InitializeOptions) error
	CollectParams(pattern ...string) *nn.ParameterDict
	Name() string
	Prefix() string
	Trace(shapes []ops.Shape, dtypes []ops.DType) (*graph.Symbol, error)
}

type layerCase struct {
	name   string
	make   func() layer
	in     ops.Shape
	index  bool      // the input holds indices in [0, 10) (Embedding)
	out    ops.Shape // the output shape Gluon gives
	block  string    // the block's name without its count ("conv", "relu", …)
	params []string  // "local_name (shape)", in declaration order
}

func layerCases() []layerCase {
	return []layerCase{
		{name: "Dense", make: func() layer { return nn.NewDense(5) }, in: ops.Shape{2, 3, 4}, out: ops.Shape{2, 5},
			block: "dense", params: []string{"weight (5, 12)", "bias (5,)"}},
		{name: "DenseNoFlattenRelu", make: func() layer { return nn.NewDense(3, nn.DenseOptions{NoFlatten: true, Act: "relu", NoBias: true}) },
			in: ops.Shape{2, 3, 4}, out: ops.Shape{2, 3, 3}, block: "dense", params: []string{"weight (3, 4)"}},
		{name: "Conv2D", make: func() layer { return nn.NewConv2D(4, []int{3}, nn.ConvOptions{Strides: []int{2}, Padding: []int{1}}) },
			in: ops.Shape{2, 3, 7, 7}, out: ops.Shape{2, 4, 4, 4}, block: "conv", params: []string{"weight (4, 3, 3, 3)", "bias (4,)"}},
		{name: "Conv2DGroups", make: func() layer { return nn.NewConv2D(4, []int{3, 2}, nn.ConvOptions{Groups: 2, Act: "tanh"}) },
			in: ops.Shape{1, 4, 5, 5}, out: ops.Shape{1, 4, 3, 4}, block: "conv", params: []string{"weight (4, 2, 3, 2)", "bias (4,)"}},
		{name: "MaxPool2D", make: func() layer { return nn.NewMaxPool2D([]int{2}) }, in: ops.Shape{2, 3, 6, 5}, out: ops.Shape{2, 3, 3, 2},
			block: "pool"},
		{name: "Conv1D", make: func() layer { return nn.NewConv1D(4, []int{3}, nn.ConvOptions{Strides: []int{2}, Padding: []int{1}}) },
			in: ops.Shape{2, 3, 9}, out: ops.Shape{2, 4, 5}, block: "conv", params: []string{"weight (4, 3, 3)", "bias (4,)"}},
		{name: "Conv1DDilatedGroups", make: func() layer {
			return nn.NewConv1D(4, []int{3}, nn.ConvOptions{Dilation: []int{2}, Groups: 2, NoBias: true, Act: "relu"})
		}, in: ops.Shape{2, 2, 10}, out: ops.Shape{2, 4, 6}, block: "conv", params: []string{"weight (4, 1, 3)"}},
		{name: "Conv1DInChannels", make: func() layer { return nn.NewConv1D(2, []int{1}, nn.ConvOptions{InChannels: 3}) },
			in: ops.Shape{1, 3, 4}, out: ops.Shape{1, 2, 4}, block: "conv", params: []string{"weight (2, 3, 1)", "bias (2,)"}},
		// (5-1)*2 - 2*1 + 3 + 1 = 10
		{name: "Conv2DTranspose", make: func() layer {
			return nn.NewConv2DTranspose(4, []int{3}, nn.ConvOptions{Strides: []int{2}, Padding: []int{1}, OutputPadding: []int{1}})
		}, in: ops.Shape{2, 3, 5, 5}, out: ops.Shape{2, 4, 10, 10}, block: "conv", params: []string{"weight (3, 4, 3, 3)", "bias (4,)"}},
		// h: (4-1) + 2*(2-1) + 1 = 6; w: (5-1) + 2*(3-1) + 1 = 9
		{name: "Conv2DTransposeGroupsDilation", make: func() layer {
			return nn.NewConv2DTranspose(4, []int{2, 3}, nn.ConvOptions{Groups: 2, Dilation: []int{2}, NoBias: true})
		}, in: ops.Shape{1, 2, 4, 5}, out: ops.Shape{1, 4, 6, 9}, block: "conv", params: []string{"weight (2, 2, 2, 3)"}},
		{name: "Conv2DTransposeStride", make: func() layer {
			return nn.NewConv2DTranspose(2, []int{4}, nn.ConvOptions{Strides: []int{2}, Padding: []int{1}, InChannels: 3, Act: "relu"})
		}, in: ops.Shape{1, 3, 3, 4}, out: ops.Shape{1, 2, 6, 8}, block: "conv", params: []string{"weight (3, 2, 4, 4)", "bias (2,)"}},
		{name: "Conv1DTranspose", make: func() layer {
			return nn.NewConv1DTranspose(2, []int{3}, nn.ConvOptions{Strides: []int{2}, OutputPadding: []int{1}})
		}, in: ops.Shape{2, 3, 4}, out: ops.Shape{2, 2, 10}, block: "conv", params: []string{"weight (3, 2, 3)", "bias (2,)"}},
		{name: "MaxPool2DPadded", make: func() layer { return nn.NewMaxPool2D([]int{3}, nn.PoolOptions{Strides: []int{2}, Padding: []int{1}}) },
			in: ops.Shape{1, 2, 7, 7}, out: ops.Shape{1, 2, 4, 4}, block: "pool"},
		{name: "MaxPool1D", make: func() layer { return nn.NewMaxPool1D([]int{3}, nn.PoolOptions{Strides: []int{2}}) },
			in: ops.Shape{2, 3, 9}, out: ops.Shape{2, 3, 4}, block: "pool"},
		{name: "MaxPool1DCeil", make: func() layer { return nn.NewMaxPool1D([]int{3}, nn.PoolOptions{Strides: []int{2}, CeilMode: true}) },
			in: ops.Shape{2, 3, 8}, out: ops.Shape{2, 3, 4}, block: "pool"},
		{name: "AvgPool1D", make: func() layer { return nn.NewAvgPool1D([]int{2}) }, in: ops.Shape{2, 3, 7}, out: ops.Shape{2, 3, 3},
			block: "pool"},
		{name: "AvgPool1DExcludePad", make: func() layer {
			return nn.NewAvgPool1D([]int{3}, nn.PoolOptions{Strides: []int{1}, Padding: []int{1}, ExcludePad: true})
		}, in: ops.Shape{2, 2, 5}, out: ops.Shape{2, 2, 5}, block: "pool"},
		{name: "AvgPool2D", make: func() layer { return nn.NewAvgPool2D([]int{2}) }, in: ops.Shape{1, 2, 4, 6}, out: ops.Shape{1, 2, 2, 3},
			block: "pool"},
		// padded 8, (8-3)/2 rounded up + 1 = 4
		{name: "AvgPool2DCeilExcludePad", make: func() layer {
			return nn.NewAvgPool2D([]int{3}, nn.PoolOptions{Strides: []int{2}, Padding: []int{1}, CeilMode: true, ExcludePad: true})
		}, in: ops.Shape{1, 2, 6, 6}, out: ops.Shape{1, 2, 4, 4}, block: "pool"},
		{name: "AvgPool2DIncludePad", make: func() layer {
			return nn.NewAvgPool2D([]int{3, 2}, nn.PoolOptions{Strides: []int{2, 1}, Padding: []int{1}})
		}, in: ops.Shape{1, 2, 5, 4}, out: ops.Shape{1, 2, 3, 5}, block: "pool"},
		{name: "GlobalAvgPool2D", make: func() layer { return nn.NewGlobalAvgPool2D() }, in: ops.Shape{2, 3, 5, 4}, out: ops.Shape{2, 3, 1, 1},
			block: "pool"},
		{name: "GlobalMaxPool2D", make: func() layer { return nn.NewGlobalMaxPool2D() }, in: ops.Shape{2, 3, 5, 4}, out: ops.Shape{2, 3, 1, 1},
			block: "pool"},
		{name: "GlobalAvgPool1D", make: func() layer { return nn.NewGlobalAvgPool1D() }, in: ops.Shape{2, 3, 5}, out: ops.Shape{2, 3, 1},
			block: "pool"},
		{name: "GlobalMaxPool1D", make: func() layer { return nn.NewGlobalMaxPool1D() }, in: ops.Shape{2, 3, 5}, out: ops.Shape{2, 3, 1},
			block: "pool"},
		{name: "BatchNorm", make: func() layer { return nn.NewBatchNorm() }, in: ops.Shape{4, 3, 5, 5}, out: ops.Shape{4, 3, 5, 5},
			block: "batchnorm", params: []string{"gamma (3,)", "beta (3,)", "running_mean (3,)", "running_var (3,)"}},
		{name: "BatchNormLastAxis", make: func() layer { return nn.NewBatchNorm(nn.BatchNormOptions{Axis: -1, Momentum: 0.5, Epsilon: 1e-3}) },
			in: ops.Shape{4, 5, 2}, out: ops.Shape{4, 5, 2},
			block: "batchnorm", params: []string{"gamma (2,)", "beta (2,)", "running_mean (2,)", "running_var (2,)"}},
		{name: "BatchNormNoScaleNoCenter", make: func() layer {
			return nn.NewBatchNorm(nn.BatchNormOptions{NoScale: true, NoCenter: true, InChannels: 3})
		},
			in: ops.Shape{6, 3}, out: ops.Shape{6, 3},
			block: "batchnorm", params: []string{"gamma (3,)", "beta (3,)", "running_mean (3,)", "running_var (3,)"}},
		{name: "BatchNormGlobalStats", make: func() layer { return nn.NewBatchNorm(nn.BatchNormOptions{UseGlobalStats: true}) },
			in: ops.Shape{2, 3, 4}, out: ops.Shape{2, 3, 4},
			block: "batchnorm", params: []string{"gamma (3,)", "beta (3,)", "running_mean (3,)", "running_var (3,)"}},
		{name: "LayerNorm", make: func() layer { return nn.NewLayerNorm() }, in: ops.Shape{2, 3, 6}, out: ops.Shape{2, 3, 6},
			block: "layernorm", params: []string{"gamma (6,)", "beta (6,)"}},
		{name: "LayerNormAxis1", make: func() layer { return nn.NewLayerNorm(nn.LayerNormOptions{Axis: 1, Epsilon: 1e-3, NoCenter: true}) },
			in: ops.Shape{2, 3, 6}, out: ops.Shape{2, 3, 6}, block: "layernorm", params: []string{"gamma (3,)", "beta (3,)"}},
		{name: "InstanceNorm", make: func() layer { return nn.NewInstanceNorm() }, in: ops.Shape{2, 3, 4, 4}, out: ops.Shape{2, 3, 4, 4},
			block: "instancenorm", params: []string{"gamma (3,)", "beta (3,)"}},
		{name: "InstanceNormLastAxis", make: func() layer { return nn.NewInstanceNorm(nn.InstanceNormOptions{Axis: -1, Scale: true}) },
			in: ops.Shape{2, 5, 3}, out: ops.Shape{2, 5, 3}, block: "instancenorm", params: []string{"gamma (3,)", "beta (3,)"}},
		{name: "GroupNorm", make: func() layer { return nn.NewGroupNorm(nn.GroupNormOptions{NumGroups: 2}) }, in: ops.Shape{2, 4, 3}, out: ops.Shape{2, 4, 3},
			block: "groupnorm", params: []string{"gamma (2,)", "beta (2,)"}},
		{name: "ReflectionPad2D", make: func() layer { return nn.NewReflectionPad2D(2) }, in: ops.Shape{1, 2, 3, 4}, out: ops.Shape{1, 2, 7, 8},
			block: "reflectionpad2d"},
		{name: "Dropout", make: func() layer { return nn.NewDropout(0.5) }, in: ops.Shape{4, 10}, out: ops.Shape{4, 10}, block: "dropout"},
		{name: "DropoutAxes", make: func() layer { return nn.NewDropout(0.3, nn.DropoutOptions{Axes: []int{1}}) }, in: ops.Shape{3, 4, 5}, out: ops.Shape{3, 4, 5}, block: "dropout"},
		{name: "DropoutZero", make: func() layer { return nn.NewDropout(0) }, in: ops.Shape{3, 4}, out: ops.Shape{3, 4}, block: "dropout"},
		{name: "Flatten", make: func() layer { return nn.NewFlatten() }, in: ops.Shape{2, 3, 4, 5}, out: ops.Shape{2, 60}, block: "flatten"},
		{name: "ActivationRelu", make: func() layer { return nn.NewActivation("relu") }, in: ops.Shape{3, 4}, out: ops.Shape{3, 4}, block: "relu"},
		{name: "ActivationSigmoid", make: func() layer { return nn.NewActivation("sigmoid") }, in: ops.Shape{3, 4}, out: ops.Shape{3, 4}, block: "sigmoid"},
		{name: "ActivationTanh", make: func() layer { return nn.NewActivation("tanh") }, in: ops.Shape{3, 4}, out: ops.Shape{3, 4}, block: "tanh"},
		{name: "ActivationSoftrelu", make: func() layer { return nn.NewActivation("softrelu") }, in: ops.Shape{3, 4}, out: ops.Shape{3, 4}, block: "softrelu"},
		{name: "ActivationSoftsign", make: func() layer { return nn.NewActivation("softsign") }, in: ops.Shape{3, 4}, out: ops.Shape{3, 4}, block: "softsign"},
		{name: "LeakyReLU", make: func() layer { return nn.NewLeakyReLU(0.1) }, in: ops.Shape{3, 4}, out: ops.Shape{3, 4}, block: "leakyrelu"},
		{name: "PReLUShared", make: func() layer { return nn.NewPReLU() }, in: ops.Shape{2, 3, 4}, out: ops.Shape{2, 3, 4}, block: "prelu",
			params: []string{"alpha (1,)"}},
		{name: "PReLUPerChannel", make: func() layer { return nn.NewPReLU(nn.PReLUOptions{InChannels: 3}) }, in: ops.Shape{2, 3, 4},
			out: ops.Shape{2, 3, 4}, block: "prelu", params: []string{"alpha (3,)"}},
		{name: "ELU", make: func() layer { return nn.NewELU(0.7) }, in: ops.Shape{3, 4}, out: ops.Shape{3, 4}, block: "elu"},
		{name: "SELU", make: func() layer { return nn.NewSELU() }, in: ops.Shape{3, 4}, out: ops.Shape{3, 4}, block: "selu"},
		{name: "GELU", make: func() layer { return nn.NewGELU() }, in: ops.Shape{3, 4}, out: ops.Shape{3, 4}, block: "gelu"},
		{name: "Embedding", make: func() layer { return nn.NewEmbedding(10, 4) }, in: ops.Shape{2, 5}, index: true, out: ops.Shape{2, 5, 4},
			block: "embedding", params: []string{"weight (10, 4)"}},
		{name: "HybridLambda", make: func() layer {
			return nn.NewHybridLambda(func(F ops.F, x ops.Tensor) ops.Tensor { return F.Tanh(F.MulScalar(x, 2)) })
		}, in: ops.Shape{2, 3}, out: ops.Shape{2, 3}, block: "hybridlambda"},
	}
}

// input makes a case's input: normal values, or indices in [0, 10).
func (c layerCase) input() *eager.NDArray {
	if c.index {
		v := make([]float32, c.in.Size())
		for i := range v {
			v[i] = float32((i*7 + 3) % 10)
		}
		return eager.Array(v, c.in...)
	}
	return eager.RandomNormal(c.in...)
}

func newLayer(t *testing.T, c layerCase) layer {
	t.Helper()
	l := c.make()
	if err := l.Initialize(nn.InitializeOptions{Init: nn.Uniform(0.5)}); err != nil {
		t.Fatal(err)
	}
	return l
}

func describeParams(l layer) ([]string, error) {
	var out []string
	for _, p := range l.CollectParams().List() {
		local, ok := strings.CutPrefix(p.Name(), l.Prefix())
		if !ok {
			return nil, fmt.Errorf("parameter %s does not start with the block's prefix %s", p.Name(), l.Prefix())
		}
		out = append(out, local+" "+p.Shape().Tuple())
	}
	return out, nil
}

// Every layer: the eager forward and the hybridized one agree, the output
// has the shape Gluon gives, and the parameters have Gluon's names and
// shapes once deferred initialisation is done.
func TestLayersEagerEqualsHybridized(t *testing.T) {
	for _, c := range layerCases() {
		t.Run(c.name, func(t *testing.T) {
			eager.Seed(1)
			l := newLayer(t, c)
			if ok, _ := regexp.MatchString("^"+c.block+`\d+$`, l.Name()); !ok {
				t.Errorf("block named %s, want %s<n>", l.Name(), c.block)
			}
			x := c.input()
			y1 := l.Forward(x).(*eager.NDArray)
			if !y1.Shape().Equal(c.out) {
				t.Errorf("eager output %v, want %v", y1.Shape(), c.out)
			}
			got, err := describeParams(l)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "; ") != strings.Join(c.params, "; ") {
				t.Errorf("parameters %q, want %q", got, c.params)
			}
			for _, p := range l.CollectParams().List() {
				if !p.Initialized() {
					t.Errorf("%s is not initialised after the first forward", p.Name())
				}
			}
			l.Hybridize()
			y2 := l.Forward(x).(*eager.NDArray)
			if !y2.Shape().Equal(c.out) {
				t.Errorf("hybridized output %v, want %v", y2.Shape(), c.out)
			}
			if d := optest.FirstDiff(y2.Float64s(), y1.Float64s(), 1e-6, 1e-7); d >= 0 {
				t.Errorf("hybridized output differs from eager at %d: %v vs %v", d, y2.Float64s()[d], y1.Float64s()[d])
			}
		})
	}
}

// gradients records sum(square(l(x))) in training mode and returns the
// gradients of every learned parameter and of x (nil where none).
func gradients(t *testing.T, l layer, x *eager.NDArray) [][]float64 {
	t.Helper()
	eager.Seed(3) // the same dropout masks in each run
	x.AttachGrad()
	var loss *eager.NDArray
	eager.Record(func() { loss = eager.F.Sum(eager.F.Square(l.Forward(x))).(*eager.NDArray) })
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	var out [][]float64
	for _, p := range l.CollectParams().List() {
		if p.GradReq() == eager.GradNull {
			if g := p.Grad(); g != nil && optest.FirstDiff(g.Float64s(), make([]float64, g.Size()), 0, 0) >= 0 {
				t.Errorf("%s has grad_req null but got a gradient", p.Name())
			}
			continue
		}
		out = append(out, p.Grad().Float64s())
	}
	var gx []float64
	if g := x.Grad(); g != nil {
		gx = g.Float64s()
	}
	return append(out, gx)
}

// Every layer: parameter (and input) gradients through the hybridized
// graph equal the eager ones, for the same initialised layer.
func TestLayersHybridizedGradientsEqualEager(t *testing.T) {
	for _, c := range layerCases() {
		t.Run(c.name, func(t *testing.T) {
			eager.Seed(2)
			l := newLayer(t, c)
			x := c.input()
			l.Forward(x) // finishes deferred initialisation
			eg := gradients(t, l, x)
			l.Hybridize()
			hg := gradients(t, l, x)
			if len(eg) != len(hg) {
				t.Fatalf("%d gradients eagerly, %d hybridized", len(eg), len(hg))
			}
			nonzero := false
			for i := range eg {
				if d := optest.FirstDiff(hg[i], eg[i], 1e-4, 1e-6); d >= 0 {
					t.Errorf("gradient %d differs at %d: hybridized %v, eager %v", i, d, hg[i][d], eg[i][d])
				}
				for _, v := range eg[i] {
					nonzero = nonzero || v != 0
				}
			}
			if !nonzero {
				t.Errorf("every gradient is zero")
			}
		})
	}
}

// Inside a container, children are named in Gluon's way: conv, pool,
// batchnorm, the activation's name, …, counted per parent.
func TestLayerNamesInContainer(t *testing.T) {
	net := nn.NewHybridSequential(
		nn.NewConv1D(4, []int{3}), nn.NewBatchNorm(), nn.NewActivation("relu"), nn.NewMaxPool1D([]int{2}),
		nn.NewConv1D(4, []int{3}), nn.NewBatchNorm(), nn.NewPReLU(), nn.NewGlobalAvgPool2D(),
	)
	net.Initialize()
	eager.Seed(4)
	out := net.Forward(eager.RandomNormal(2, 3, 12)).(*eager.NDArray)
	if !out.Shape().Equal(ops.Shape{2, 4, 1}) {
		t.Errorf("output %v", out.Shape())
	}
	var got []string
	for _, p := range net.CollectParams().List() {
		got = append(got, strings.TrimPrefix(p.Name(), net.Prefix())+" "+p.Shape().Tuple())
	}
	want := []string{
		"conv0_weight (4, 3, 3)", "conv0_bias (4,)",
		"batchnorm0_gamma (4,)", "batchnorm0_beta (4,)", "batchnorm0_running_mean (4,)", "batchnorm0_running_var (4,)",
		"conv1_weight (4, 4, 3)", "conv1_bias (4,)",
		"batchnorm1_gamma (4,)", "batchnorm1_beta (4,)", "batchnorm1_running_mean (4,)", "batchnorm1_running_var (4,)",
		"prelu0_alpha (1,)",
	}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("parameters\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s := net.String()
	for _, name := range []string{"relu0", "pool0", "pool1", "prelu0"} {
		if !strings.Contains(s, net.Prefix()+name) {
			t.Errorf("no child %s in\n%s", name, s)
		}
	}
}

// channelStats returns the mean and (biased) variance of each channel of
// NCHW-like data (channels on axis 1).
func channelStats(x *eager.NDArray) (mean, variance []float64) {
	s := x.Shape()
	outer, c, inner := s[0], s[1], s.Size()/(s[0]*s[1])
	v := x.Float64s()
	mean, variance = make([]float64, c), make([]float64, c)
	n := float64(outer * inner)
	for ch := range c {
		for o := range outer {
			for i := range inner {
				mean[ch] += v[(o*c+ch)*inner+i]
			}
		}
		mean[ch] /= n
		for o := range outer {
			for i := range inner {
				d := v[(o*c+ch)*inner+i] - mean[ch]
				variance[ch] += d * d
			}
		}
		variance[ch] /= n
	}
	return mean, variance
}

// BatchNorm updates its running statistics in training mode, eagerly and
// hybridized, and normalises with them in prediction mode.
func TestBatchNormRunningStats(t *testing.T) {
	eager.Seed(5)
	x := eager.F.PlusScalar(eager.F.MulScalar(eager.RandomNormal(4, 3, 5, 5), 2), 1).(*eager.NDArray)
	mean, variance := channelStats(x)
	for _, hybrid := range []bool{false, true} {
		t.Run(fmt.Sprintf("hybridized=%v", hybrid), func(t *testing.T) {
			bn := nn.NewBatchNorm()
			bn.Initialize()
			if hybrid {
				bn.Hybridize()
			}
			// Prediction mode (the default): the running statistics, still
			// 0 and 1, are used and left alone.
			y := bn.Forward(x).(*eager.NDArray)
			scale := 1 / math.Sqrt(1+1e-5)
			for i, v := range x.Float64s() {
				if !optest.Close(y.Float64s()[i], v*scale, 1e-5, 1e-6) {
					t.Fatalf("predict with fresh stats: out[%d] = %v, want %v", i, y.Float64s()[i], v*scale)
				}
			}
			if got := bn.RunningMean.Data().Float64s(); got[0] != 0 {
				t.Errorf("prediction changed the running mean: %v", got)
			}

			// Training, recorded: batch statistics, running ones updated.
			var out *eager.NDArray
			eager.Record(func() { out = bn.Forward(x).(*eager.NDArray) })
			om, ov := channelStats(out)
			for ch := range 3 {
				if math.Abs(om[ch]) > 1e-5 || math.Abs(ov[ch]-variance[ch]/(variance[ch]+1e-5)) > 1e-4 {
					t.Errorf("training output channel %d has mean %v, variance %v", ch, om[ch], ov[ch])
				}
			}
			rm, rv := bn.RunningMean.Data().Float64s(), bn.RunningVar.Data().Float64s()
			for ch := range 3 {
				if !optest.Close(rm[ch], 0.1*mean[ch], 1e-5, 1e-6) || !optest.Close(rv[ch], 0.9+0.1*variance[ch], 1e-5, 1e-6) {
					t.Errorf("after one step channel %d: running mean %v var %v, want %v %v", ch, rm[ch], rv[ch], 0.1*mean[ch], 0.9+0.1*variance[ch])
				}
			}

			// Training without recording (TrainMode) updates them too.
			eager.TrainMode(func() { bn.Forward(x) })
			rm, rv = bn.RunningMean.Data().Float64s(), bn.RunningVar.Data().Float64s()
			for ch := range 3 {
				wm, wv := 0.19*mean[ch], 0.81+0.19*variance[ch]
				if !optest.Close(rm[ch], wm, 1e-5, 1e-6) || !optest.Close(rv[ch], wv, 1e-5, 1e-6) {
					t.Errorf("after two steps channel %d: running mean %v var %v, want %v %v", ch, rm[ch], rv[ch], wm, wv)
				}
			}

			// Prediction uses the running statistics.
			y = bn.Forward(x).(*eager.NDArray)
			xv, yv := x.Float64s(), y.Float64s()
			inner := 25
			for i := range xv {
				ch := (i / inner) % 3
				want := (xv[i] - rm[ch]) / math.Sqrt(rv[ch]+1e-5)
				if !optest.Close(yv[i], want, 1e-4, 1e-5) {
					t.Fatalf("predict: out[%d] = %v, want %v", i, yv[i], want)
				}
			}
		})
	}
}

// With UseGlobalStats, training normalises with the running statistics
// and leaves them alone.
func TestBatchNormUseGlobalStats(t *testing.T) {
	for _, hybrid := range []bool{false, true} {
		bn := nn.NewBatchNorm(nn.BatchNormOptions{UseGlobalStats: true})
		bn.Initialize()
		if hybrid {
			bn.Hybridize()
		}
		x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
		var y *eager.NDArray
		eager.Record(func() { y = bn.Forward(x).(*eager.NDArray) })
		scale := 1 / math.Sqrt(1+1e-5)
		for i, v := range x.Float64s() {
			if !optest.Close(y.Float64s()[i], v*scale, 1e-5, 1e-6) {
				t.Errorf("hybridized=%v: out[%d] = %v, want %v", hybrid, i, y.Float64s()[i], v*scale)
			}
		}
		if m := bn.RunningMean.Data().Float64s(); m[0] != 0 || m[1] != 0 {
			t.Errorf("hybridized=%v: running mean changed to %v", hybrid, m)
		}
	}
}

// Dropout is the identity in prediction mode and drops (scaling the rest)
// in training mode, eagerly and hybridized.
func TestDropoutModes(t *testing.T) {
	for _, hybrid := range []bool{false, true} {
		t.Run(fmt.Sprintf("hybridized=%v", hybrid), func(t *testing.T) {
			eager.Seed(6)
			d := nn.NewDropout(0.4)
			if hybrid {
				d.Hybridize()
			}
			x := eager.F.PlusScalar(eager.RandomUniform(50, 40), 1).(*eager.NDArray)
			y := d.Forward(x).(*eager.NDArray)
			if optest.FirstDiff(y.Float64s(), x.Float64s(), 0, 0) >= 0 {
				t.Errorf("prediction mode changed the data")
			}
			eager.TrainMode(func() { y = d.Forward(x).(*eager.NDArray) })
			dropped := 0
			for i, v := range y.Float64s() {
				switch {
				case v == 0:
					dropped++
				case !optest.Close(v, x.Float64s()[i]/0.6, 1e-6, 1e-6):
					t.Fatalf("kept element %d is %v, want %v", i, v, x.Float64s()[i]/0.6)
				}
			}
			if frac := float64(dropped) / 2000; frac < 0.35 || frac > 0.45 {
				t.Errorf("dropped %v of the elements, want about 0.4", frac)
			}

			// Axes share the mask: each row is dropped or kept whole.
			da := nn.NewDropout(0.5, nn.DropoutOptions{Axes: []int{1}})
			if hybrid {
				da.Hybridize()
			}
			eager.TrainMode(func() { y = da.Forward(x).(*eager.NDArray) })
			rows := map[bool]int{}
			v := y.Float64s()
			for r := range 50 {
				zero := v[r*40] == 0
				rows[zero]++
				for c := range 40 {
					if (v[r*40+c] == 0) != zero {
						t.Fatalf("row %d is partly dropped", r)
					}
				}
			}
			if rows[true] == 0 || rows[false] == 0 {
				t.Errorf("rows dropped/kept: %v", rows)
			}
		})
	}
}

// PReLU's gradient to alpha is the sum of the negative inputs (times the
// head gradient), per channel or shared.
func TestPReLUGradientToAlpha(t *testing.T) {
	x := eager.Array([]float32{-1, 2, -3, 4, -0.5, 6, 1, -2, -4, 3, 5, -1}, 2, 3, 2)
	// The sums of the negative inputs, per channel (axis 1 of (n, c, w)) and in all.
	perChannel := []float64{0, 0, 0}
	shared := 0.0
	for i, v := range x.Float64s() {
		if v < 0 {
			perChannel[(i/2)%3] += v
			shared += v
		}
	}
	for _, hybrid := range []bool{false, true} {
		for _, in := range []int{0, 3} {
			p := nn.NewPReLU(nn.PReLUOptions{InChannels: in})
			p.Initialize()
			if hybrid {
				p.Hybridize()
			}
			var y *eager.NDArray
			eager.Record(func() { y = eager.F.Sum(p.Forward(x)).(*eager.NDArray) })
			if err := y.Backward(); err != nil {
				t.Fatal(err)
			}
			want := []float64{shared}
			if in == 3 {
				want = perChannel
			}
			if got := p.Alpha.Grad().Float64s(); optest.FirstDiff(got, want, 1e-6, 1e-6) >= 0 {
				t.Errorf("hybridized=%v channels=%d: alpha gradient %v, want %v", hybrid, in, got, want)
			}
			// The forward used alpha = 0.25.
			wantSum := 0.0
			for _, v := range x.Float64s() {
				if v < 0 {
					v *= 0.25
				}
				wantSum += v
			}
			if !optest.Close(y.Scalar(), wantSum, 1e-6, 1e-6) {
				t.Errorf("hybridized=%v channels=%d: sum %v, want %v", hybrid, in, y.Scalar(), wantSum)
			}
		}
	}
}

// Conv2DTranspose inverts the shapes of the matching Conv2D; output
// padding picks among the sizes a strided convolution maps alike.
func TestConv2DTransposeShapes(t *testing.T) {
	for _, c := range []struct {
		in, kernel, stride, pad, outPad, dilation int
		want                                      int
	}{
		{in: 4, kernel: 3, stride: 1, want: 6},
		{in: 4, kernel: 3, stride: 2, want: 9},
		{in: 4, kernel: 3, stride: 2, outPad: 1, want: 10},
		{in: 4, kernel: 4, stride: 2, pad: 1, want: 8},
		{in: 5, kernel: 3, stride: 3, pad: 1, outPad: 2, want: 15},
		{in: 4, kernel: 3, stride: 1, dilation: 2, want: 8},
	} {
		o := nn.ConvOptions{Strides: []int{c.stride}, Padding: []int{c.pad}, OutputPadding: []int{c.outPad}}
		if c.dilation > 0 {
			o.Dilation = []int{c.dilation}
		}
		l := nn.NewConv2DTranspose(2, []int{c.kernel}, o)
		l.Initialize()
		y := l.Forward(eager.Ones(1, 3, c.in, c.in))
		if want := (ops.Shape{1, 2, c.want, c.want}); !y.Shape().Equal(want) {
			t.Errorf("%+v: output %v, want %v", c, y.Shape(), want)
		}
		// The Conv2D with the same geometry maps the output back to the input size.
		conv := nn.NewConv2D(3, []int{c.kernel}, nn.ConvOptions{Strides: []int{c.stride}, Padding: []int{c.pad}, Dilation: o.Dilation})
		conv.Initialize()
		if back := conv.Forward(y); back.Shape()[2] != c.in {
			t.Errorf("%+v: Conv2D maps %v back to %v", c, y.Shape(), back.Shape())
		}
	}
}

func TestEmbeddingFloat64(t *testing.T) {
	e := nn.NewEmbedding(5, 3, nn.EmbeddingOptions{DType: ops.Float64})
	if e.Weight.DType() != ops.Float64 {
		t.Fatalf("weight dtype %v", e.Weight.DType())
	}
	e.Initialize()
	w := eager.Array([]float64{0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42}, 5, 3)
	if err := e.Weight.SetData(w); err != nil {
		t.Fatal(err)
	}
	y := e.Forward(eager.Array([]float32{4, 0, 2}, 3)).(*eager.NDArray)
	want := []float64{40, 41, 42, 0, 1, 2, 20, 21, 22}
	if y.DType() != ops.Float64 || optest.FirstDiff(y.Float64s(), want, 0, 0) >= 0 {
		t.Errorf("got %v %v, want %v", y.DType(), y.Float64s(), want)
	}
}

// Constructors refuse bad settings with errors naming the layer.
func TestLayerConstructorErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		make func()
		want string
	}{
		{"Conv1D kernel", func() { nn.NewConv1D(2, []int{3, 3}) }, "nn.NewConv1D: kernel [3 3] must have 1 value"},
		{"Conv2D no kernel", func() { nn.NewConv2D(2, nil) }, "nn.NewConv2D: kernel is required"},
		{"Conv2D channels", func() { nn.NewConv2D(0, []int{3}) }, "nn.NewConv2D: channels=0 must be positive"},
		{"Conv2D strides", func() { nn.NewConv2D(2, []int{3}, nn.ConvOptions{Strides: []int{0}}) }, "nn.NewConv2D: Strides [0] must be at least 1"},
		{"Conv2D padding", func() { nn.NewConv2D(2, []int{3}, nn.ConvOptions{Padding: []int{-1}}) }, "nn.NewConv2D: Padding [-1] must be at least 0"},
		{"Conv2D layout", func() { nn.NewConv2D(2, []int{3}, nn.ConvOptions{Layout: "NHWC"}) }, `nn.NewConv2D: Layout "NHWC" is not supported`},
		{"Conv1D layout", func() { nn.NewConv1D(2, []int{3}, nn.ConvOptions{Layout: "NCHW"}) }, "channels-first (NCW)"},
		{"Conv2D output padding", func() { nn.NewConv2D(2, []int{3}, nn.ConvOptions{OutputPadding: []int{1}}) }, "OutputPadding applies to transposed"},
		{"Conv2DTranspose output padding", func() { nn.NewConv2DTranspose(2, []int{3}, nn.ConvOptions{OutputPadding: []int{1}}) }, "OutputPadding [1] must be below Strides"},
		{"Conv2DTranspose groups", func() { nn.NewConv2DTranspose(3, []int{2}, nn.ConvOptions{Groups: 2}) }, "Groups=2 does not divide channels=3"},
		{"Conv2D in channels", func() { nn.NewConv2D(4, []int{2}, nn.ConvOptions{Groups: 2, InChannels: 3}) }, "Groups=2 does not divide InChannels=3"},
		{"AvgPool2D strides", func() { nn.NewAvgPool2D([]int{2}, nn.PoolOptions{Strides: []int{1, 2, 3}}) }, "nn.NewAvgPool2D: Strides [1 2 3] must have 1 or 2 values"},
		{"MaxPool2D no size", func() { nn.NewMaxPool2D(nil) }, "nn.NewMaxPool2D: poolSize is required"},
		{"MaxPool1D exclude pad", func() { nn.NewMaxPool1D([]int{2}, nn.PoolOptions{ExcludePad: true}) }, "average pooling only"},
		{"GlobalAvgPool2D layout", func() { nn.NewGlobalAvgPool2D(nn.GlobalPoolOptions{Layout: "NHWC"}) }, "nn.NewGlobalAvgPool2D: Layout"},
		{"Dense units", func() { nn.NewDense(0) }, "nn.NewDense: units=0"},
		{"Dense dtype", func() { nn.NewDense(2, nn.DenseOptions{DType: ops.Int32}) }, "nn.NewDense: DType int32"},
		{"Dropout rate", func() { nn.NewDropout(1.5) }, "rate=1.5"},
		{"LeakyReLU alpha", func() { nn.NewLeakyReLU(-1) }, "alpha=-1"},
		{"Embedding dims", func() { nn.NewEmbedding(0, 3) }, "nn.NewEmbedding: inputDim=0"},
		{"Embedding dtype", func() { nn.NewEmbedding(3, 3, nn.EmbeddingOptions{DType: ops.Int32}) }, "int32"},
		{"HybridLambda nil", func() { nn.NewHybridLambda(nil) }, "HybridLambda"},
		// More than one options value is a mistake, not a silent drop.
		{"Dense two options", func() { nn.NewDense(2, nn.DenseOptions{}, nn.DenseOptions{Act: "relu"}) }, "nn.NewDense takes at most one DenseOptions, got 2"},
		{"Conv2D two options", func() { nn.NewConv2D(2, []int{3}, nn.ConvOptions{}, nn.ConvOptions{}) }, "nn.NewConv2D takes at most one ConvOptions, got 2"},
		{"MaxPool2D two options", func() { nn.NewMaxPool2D([]int{2}, nn.PoolOptions{}, nn.PoolOptions{}) }, "nn.NewMaxPool2D takes at most one PoolOptions, got 2"},
		{"BatchNorm three options", func() { nn.NewBatchNorm(nn.BatchNormOptions{}, nn.BatchNormOptions{}, nn.BatchNormOptions{}) }, "nn.NewBatchNorm takes at most one BatchNormOptions, got 3"},
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
				}
			}()
			c.make()
		}()
	}
}

// An unknown activation fails on the first forward with an error naming
// the block.
func TestActivationUnknownNamesBlock(t *testing.T) {
	a := nn.NewActivation("swishy")
	defer func() {
		err, _ := recover().(error)
		if err == nil || !strings.Contains(err.Error(), a.Name()) || !strings.Contains(err.Error(), "swishy") {
			t.Errorf("got %v", err)
		}
	}()
	a.Forward(eager.Ones(2))
}

// A BatchNorm inside a hybridized parent updates its running statistics
// as the eager one does.
func TestBatchNormRunningStatsInsideHybridizedParent(t *testing.T) {
	stats := func(hybrid bool) [][]float64 {
		eager.Seed(8)
		net := nn.NewHybridSequential(nn.NewConv2D(3, []int{3}), nn.NewBatchNorm(), nn.NewActivation("relu"))
		net.Initialize(nn.InitializeOptions{Init: nn.Xavier()})
		x := eager.RandomNormal(2, 2, 6, 6)
		net.Forward(x)
		if hybrid {
			net.Hybridize()
		}
		for range 2 {
			eager.Record(func() { net.Forward(x) })
		}
		bn := net.Layers[1].(*nn.BatchNorm)
		return [][]float64{bn.RunningMean.Data().Float64s(), bn.RunningVar.Data().Float64s()}
	}
	e, h := stats(false), stats(true)
	for i := range e {
		if d := optest.FirstDiff(h[i], e[i], 1e-5, 1e-6); d >= 0 {
			t.Errorf("statistic %d: hybridized %v, eager %v", i, h[i], e[i])
		}
	}
	if e[0][0] == 0 || e[1][0] == 1 {
		t.Errorf("running statistics were not updated: %v", e)
	}
}

// Traced, BatchNorm's running statistics are the graph's auxiliary
// states and its output is named "<prefix>fwd", as in an exported Gluon model.
func TestBatchNormTraceNames(t *testing.T) {
	bn := nn.NewBatchNorm(nn.BatchNormOptions{InChannels: 3})
	sym, err := bn.Trace([]ops.Shape{{2, 3, 4}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := bn.Prefix()
	if got, want := strings.Join(sym.ListArguments(), " "), "data "+p+"gamma "+p+"beta"; got != want {
		t.Errorf("arguments %q, want %q", got, want)
	}
	if got, want := strings.Join(sym.ListAuxiliaryStates(), " "), p+"running_mean "+p+"running_var"; got != want {
		t.Errorf("auxiliary states %q, want %q", got, want)
	}
	if got := sym.Output(0).Name(); got != p+"fwd" {
		t.Errorf("the output node is %q, want %q", got, p+"fwd")
	}
}

// Block methods that take Gluon-style options refuse a second value as
// the constructors do, instead of dropping it.
func TestBlockMethodsTakeOneOption(t *testing.T) {
	d := nn.NewDense(2)
	for _, c := range []struct {
		want string
		call func()
	}{
		{"Hybridize takes at most one HybridizeOptions, got 2", func() { d.Hybridize(nn.HybridizeOptions{}, nn.HybridizeOptions{}) }},
		{"Initialize takes at most one InitializeOptions, got 2", func() { d.Initialize(nn.InitializeOptions{}, nn.InitializeOptions{}) }},
		{"nn.Xavier takes at most one XavierOptions, got 2", func() { nn.Xavier(nn.XavierOptions{}, nn.XavierOptions{}) }},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), c.want) {
					t.Errorf("got %v, want a panic saying %q", r, c.want)
				}
			}()
			c.call()
		}()
	}
}
