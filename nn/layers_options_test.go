package nn_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// describeLayer runs a layer eagerly on data of shape in, traces it, and
// describes what its options can reach: the parameters as declared
// ("declared weight (4, 0, 3, 3)"), each op of the traced graph with its
// non-default attributes ("Convolution(kernel=(3, 3) num_filter=4)"),
// the parameters it holds ("params [weight bias]"), and each parameter's
// dtype, grad_req and first value once initialised
// ("weight(float32, write)=3").
func describeLayer(t *testing.T, l layer, in ops.Shape, dtype ops.DType, index bool) string {
	t.Helper()
	var parts, names []string
	for _, p := range l.CollectParams().List() {
		name := strings.TrimPrefix(p.Name(), l.Prefix())
		parts = append(parts, "declared "+name+" "+p.Shape().Tuple())
		names = append(names, name)
	}
	parts = append(parts, fmt.Sprintf("params %v", names))
	if err := l.Initialize(); err != nil {
		t.Fatal(err)
	}
	x := layerCase{in: in, index: index}.input().AsType(dtype)
	l.Forward(x)
	sym, err := l.Trace([]ops.Shape{in}, []ops.DType{dtype})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range sym.Graph().Nodes {
		if !n.IsVar() {
			parts = append(parts, fmt.Sprintf("%s(%s)", n.Op.Name(), n.Op.AttrString(n.Attrs)))
		}
	}
	for _, p := range l.CollectParams().List() {
		name := strings.TrimPrefix(p.Name(), l.Prefix())
		parts = append(parts, fmt.Sprintf("%s(%v, %v)=%g", name, p.DType(), p.GradReq(), p.Data().Float64s()[0]))
	}
	return strings.Join(parts, "; ") + ";"
}

// optionCase sets one field of a layer's options to a value other than
// its default, and names what that puts into the layer's description
// (describeLayer), which the layer made without options must not have;
// or, for an option the layer refuses, the panic it gives.
type optionCase[O any] struct {
	field  string
	set    func(o *O)
	want   string
	dtype  ops.DType // of the input; float32 unless the option needs another
	panics string
}

// optionFamily is a layer constructor and a case for every field of its
// options: a field without a case fails the test, so a new option comes
// with a check that it reaches the traced graph.
type optionFamily[O any] struct {
	layer string
	make  func(opts ...O) layer
	in    ops.Shape
	index bool // the input holds indices (Embedding)
	cases []optionCase[O]
}

func (f optionFamily[O]) name() string { return f.layer }

func (f optionFamily[O]) run(t *testing.T) {
	typ := reflect.TypeFor[O]()
	var fields, covered []string
	for i := range typ.NumField() {
		fields = append(fields, typ.Field(i).Name)
	}
	for _, c := range f.cases {
		covered = append(covered, c.field)
	}
	slices.Sort(fields)
	slices.Sort(covered)
	if !slices.Equal(fields, covered) {
		t.Errorf("the cases cover the fields %v of %s, want each of %v once", covered, typ.Name(), fields)
	}
	base := describeLayer(t, f.make(), f.in, ops.Float32, f.index)
	for _, c := range f.cases {
		var o O
		c.set(&o)
		if c.panics != "" {
			err := catch(func() { f.make(o) })
			if err == nil || !strings.Contains(err.Error(), c.panics) {
				t.Errorf("%s: got %v, want a panic with %q", c.field, err, c.panics)
			}
			continue
		}
		got := describeLayer(t, f.make(o), f.in, c.dtype, f.index)
		if !strings.Contains(got, c.want) || strings.Contains(base, c.want) {
			t.Errorf("%s: %q should be in\n%s\nand not in the default\n%s", c.field, c.want, got, base)
		}
	}
}

// catch runs fn and returns the error it panics with, or nil.
func catch(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err, _ = r.(error)
			if err == nil {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	fn()
	return nil
}

// tuple prints v repeated nd times as MXNet writes a tuple.
func tuple(v, nd int) string {
	return ops.Shape(slices.Repeat([]int{v}, nd)).Tuple()
}

// convCases are the cases of ConvOptions for a convolution (or its
// transpose) with 4 channels and a kernel of 3 on 4 channels of nd dims.
func convCases(nd int, transposed bool) []optionCase[nn.ConvOptions] {
	layout := map[int]string{1: "NCW", 2: "NCHW"}[nd]
	noBias, outPad := "no_bias=True", optionCase[nn.ConvOptions]{field: "OutputPadding",
		set: func(o *nn.ConvOptions) { o.OutputPadding = []int{1} }, panics: "transposed convolutions only"}
	if transposed {
		// Deconvolution's no_bias defaults to True.
		noBias = "params [weight]"
		outPad = optionCase[nn.ConvOptions]{field: "OutputPadding",
			set: func(o *nn.ConvOptions) { o.Strides, o.OutputPadding = []int{2}, []int{1} }, want: "adj=" + tuple(1, nd)}
	}
	return []optionCase[nn.ConvOptions]{
		{field: "Strides", set: func(o *nn.ConvOptions) { o.Strides = []int{2} }, want: "stride=" + tuple(2, nd)},
		{field: "Padding", set: func(o *nn.ConvOptions) { o.Padding = []int{1} }, want: "pad=" + tuple(1, nd)},
		{field: "Dilation", set: func(o *nn.ConvOptions) { o.Dilation = []int{2} }, want: "dilate=" + tuple(2, nd)},
		outPad,
		{field: "Groups", set: func(o *nn.ConvOptions) { o.Groups = 2 }, want: "num_group=2"},
		{field: "Layout", set: func(o *nn.ConvOptions) { o.Layout = layout }, want: "layout=" + layout},
		{field: "InChannels", set: func(o *nn.ConvOptions) { o.InChannels = 4 }, want: "declared weight (4, 4, 3"},
		{field: "Act", set: func(o *nn.ConvOptions) { o.Act = "relu" }, want: "Activation(act_type=relu)"},
		{field: "NoBias", set: func(o *nn.ConvOptions) { o.NoBias = true }, want: noBias},
		{field: "WeightInit", set: func(o *nn.ConvOptions) { o.WeightInit = nn.ConstantInit(3) }, want: "weight(float32, write)=3;"},
		{field: "BiasInit", set: func(o *nn.ConvOptions) { o.BiasInit = nn.ConstantInit(2) }, want: "bias(float32, write)=2;"},
	}
}

// poolCases are the cases of PoolOptions for a pool of size 2 over nd
// dims.
func poolCases(nd int, avg bool) []optionCase[nn.PoolOptions] {
	layout := map[int]string{1: "NCW", 2: "NCHW"}[nd]
	excludePad := optionCase[nn.PoolOptions]{field: "ExcludePad", set: func(o *nn.PoolOptions) { o.ExcludePad = true },
		panics: "average pooling only"}
	if avg {
		excludePad.panics, excludePad.want = "", "count_include_pad=False"
	}
	return []optionCase[nn.PoolOptions]{
		{field: "Strides", set: func(o *nn.PoolOptions) { o.Strides = []int{1} }, want: "stride=" + tuple(1, nd)},
		{field: "Padding", set: func(o *nn.PoolOptions) { o.Padding = []int{1} }, want: "pad=" + tuple(1, nd)},
		{field: "CeilMode", set: func(o *nn.PoolOptions) { o.CeilMode = true }, want: "pooling_convention=full"},
		{field: "Layout", set: func(o *nn.PoolOptions) { o.Layout = layout }, want: "layout=" + layout},
		excludePad,
	}
}

func globalPoolCases(nd int) []optionCase[nn.GlobalPoolOptions] {
	layout := map[int]string{1: "NCW", 2: "NCHW"}[nd]
	return []optionCase[nn.GlobalPoolOptions]{
		{field: "Layout", set: func(o *nn.GlobalPoolOptions) { o.Layout = layout }, want: "layout=" + layout},
	}
}

// layerOf adapts a constructor that returns a concrete layer type.
func layerOf[O any, L layer](make func(opts ...O) L) func(opts ...O) layer {
	return func(opts ...O) layer { return make(opts...) }
}

// Every option of every layer family reaches the traced graph (an op's
// attribute, the parameters' shapes, dtypes, grad_req or values), or is
// refused by the layers it does not apply to.
func TestLayerOptionsReachTheGraph(t *testing.T) {
	init3 := nn.ConstantInit(3)
	families := []interface {
		name() string
		run(t *testing.T)
	}{
		optionFamily[nn.ConvOptions]{layer: "Conv1D", make: layerOf(func(o ...nn.ConvOptions) *nn.Conv1D { return nn.NewConv1D(4, []int{3}, o...) }),
			in: ops.Shape{1, 4, 7}, cases: convCases(1, false)},
		optionFamily[nn.ConvOptions]{layer: "Conv2D", make: layerOf(func(o ...nn.ConvOptions) *nn.Conv2D { return nn.NewConv2D(4, []int{3}, o...) }),
			in: ops.Shape{1, 4, 7, 7}, cases: convCases(2, false)},
		optionFamily[nn.ConvOptions]{layer: "Conv1DTranspose",
			make: layerOf(func(o ...nn.ConvOptions) *nn.Conv1DTranspose { return nn.NewConv1DTranspose(4, []int{3}, o...) }),
			in:   ops.Shape{1, 4, 5}, cases: convCases(1, true)},
		optionFamily[nn.ConvOptions]{layer: "Conv2DTranspose",
			make: layerOf(func(o ...nn.ConvOptions) *nn.Conv2DTranspose { return nn.NewConv2DTranspose(4, []int{3}, o...) }),
			in:   ops.Shape{1, 4, 5, 5}, cases: convCases(2, true)},
		optionFamily[nn.PoolOptions]{layer: "MaxPool1D", in: ops.Shape{1, 2, 6}, cases: poolCases(1, false),
			make: layerOf(func(o ...nn.PoolOptions) *nn.MaxPool1D { return nn.NewMaxPool1D([]int{2}, o...) })},
		optionFamily[nn.PoolOptions]{layer: "MaxPool2D", in: ops.Shape{1, 2, 6, 6}, cases: poolCases(2, false),
			make: layerOf(func(o ...nn.PoolOptions) *nn.MaxPool2D { return nn.NewMaxPool2D([]int{2}, o...) })},
		optionFamily[nn.PoolOptions]{layer: "AvgPool1D", in: ops.Shape{1, 2, 6}, cases: poolCases(1, true),
			make: layerOf(func(o ...nn.PoolOptions) *nn.AvgPool1D { return nn.NewAvgPool1D([]int{2}, o...) })},
		optionFamily[nn.PoolOptions]{layer: "AvgPool2D", in: ops.Shape{1, 2, 6, 6}, cases: poolCases(2, true),
			make: layerOf(func(o ...nn.PoolOptions) *nn.AvgPool2D { return nn.NewAvgPool2D([]int{2}, o...) })},
		optionFamily[nn.GlobalPoolOptions]{layer: "GlobalMaxPool1D", make: layerOf(nn.NewGlobalMaxPool1D), in: ops.Shape{1, 2, 6}, cases: globalPoolCases(1)},
		optionFamily[nn.GlobalPoolOptions]{layer: "GlobalMaxPool2D", make: layerOf(nn.NewGlobalMaxPool2D), in: ops.Shape{1, 2, 6, 6}, cases: globalPoolCases(2)},
		optionFamily[nn.GlobalPoolOptions]{layer: "GlobalAvgPool1D", make: layerOf(nn.NewGlobalAvgPool1D), in: ops.Shape{1, 2, 6}, cases: globalPoolCases(1)},
		optionFamily[nn.GlobalPoolOptions]{layer: "GlobalAvgPool2D", make: layerOf(nn.NewGlobalAvgPool2D), in: ops.Shape{1, 2, 6, 6}, cases: globalPoolCases(2)},
		optionFamily[nn.DenseOptions]{layer: "Dense", in: ops.Shape{2, 3, 4},
			make: layerOf(func(o ...nn.DenseOptions) *nn.Dense { return nn.NewDense(5, o...) }),
			cases: []optionCase[nn.DenseOptions]{
				{field: "Act", set: func(o *nn.DenseOptions) { o.Act = "tanh" }, want: "Activation(act_type=tanh)"},
				{field: "NoBias", set: func(o *nn.DenseOptions) { o.NoBias = true }, want: "no_bias=True"},
				{field: "NoFlatten", set: func(o *nn.DenseOptions) { o.NoFlatten = true }, want: "flatten=False"},
				{field: "DType", set: func(o *nn.DenseOptions) { o.DType = ops.Float64 }, dtype: ops.Float64, want: "weight(float64"},
				{field: "WeightInit", set: func(o *nn.DenseOptions) { o.WeightInit = init3 }, want: "weight(float32, write)=3;"},
				{field: "BiasInit", set: func(o *nn.DenseOptions) { o.BiasInit = nn.ConstantInit(2) }, want: "bias(float32, write)=2;"},
				{field: "InUnits", set: func(o *nn.DenseOptions) { o.InUnits = 12 }, want: "declared weight (5, 12)"},
			}},
		optionFamily[nn.BatchNormOptions]{layer: "BatchNorm", make: layerOf(nn.NewBatchNorm), in: ops.Shape{2, 3, 4},
			cases: []optionCase[nn.BatchNormOptions]{
				{field: "Axis", set: func(o *nn.BatchNormOptions) { o.Axis = -1 }, want: "axis=-1"},
				{field: "Momentum", set: func(o *nn.BatchNormOptions) { o.Momentum = 0.5 }, want: "momentum=0.5"},
				{field: "Epsilon", set: func(o *nn.BatchNormOptions) { o.Epsilon = 0.01 }, want: "eps=0.01"},
				{field: "NoCenter", set: func(o *nn.BatchNormOptions) { o.NoCenter = true }, want: "beta(float32, null)"},
				{field: "NoScale", set: func(o *nn.BatchNormOptions) { o.NoScale = true }, want: "gamma(float32, null)"},
				{field: "UseGlobalStats", set: func(o *nn.BatchNormOptions) { o.UseGlobalStats = true }, want: "use_global_stats=True"},
				{field: "InChannels", set: func(o *nn.BatchNormOptions) { o.InChannels = 3 }, want: "declared gamma (3,)"},
				{field: "GammaInit", set: func(o *nn.BatchNormOptions) { o.GammaInit = init3 }, want: "gamma(float32, write)=3;"},
				{field: "BetaInit", set: func(o *nn.BatchNormOptions) { o.BetaInit = init3 }, want: "beta(float32, write)=3;"},
				{field: "RunningMeanInit", set: func(o *nn.BatchNormOptions) { o.RunningMeanInit = init3 }, want: "running_mean(float32, null)=3;"},
				{field: "RunningVarInit", set: func(o *nn.BatchNormOptions) { o.RunningVarInit = init3 }, want: "running_var(float32, null)=3;"},
			}},
		optionFamily[nn.LayerNormOptions]{layer: "LayerNorm", make: layerOf(nn.NewLayerNorm), in: ops.Shape{2, 3, 6},
			cases: []optionCase[nn.LayerNormOptions]{
				{field: "Axis", set: func(o *nn.LayerNormOptions) { o.Axis = 1 }, want: "axis=1"},
				{field: "Epsilon", set: func(o *nn.LayerNormOptions) { o.Epsilon = 0.01 }, want: "eps=0.01"},
				{field: "NoCenter", set: func(o *nn.LayerNormOptions) { o.NoCenter = true }, want: "beta(float32, null)"},
				{field: "NoScale", set: func(o *nn.LayerNormOptions) { o.NoScale = true }, want: "gamma(float32, null)"},
				{field: "InChannels", set: func(o *nn.LayerNormOptions) { o.InChannels = 6 }, want: "declared gamma (6,)"},
				{field: "GammaInit", set: func(o *nn.LayerNormOptions) { o.GammaInit = init3 }, want: "gamma(float32, write)=3;"},
				{field: "BetaInit", set: func(o *nn.LayerNormOptions) { o.BetaInit = init3 }, want: "beta(float32, write)=3;"},
			}},
		optionFamily[nn.EmbeddingOptions]{layer: "Embedding", in: ops.Shape{2, 5}, index: true,
			make: layerOf(func(o ...nn.EmbeddingOptions) *nn.Embedding { return nn.NewEmbedding(10, 4, o...) }),
			cases: []optionCase[nn.EmbeddingOptions]{
				{field: "DType", set: func(o *nn.EmbeddingOptions) { o.DType = ops.Float64 }, want: "weight(float64"},
				{field: "WeightInit", set: func(o *nn.EmbeddingOptions) { o.WeightInit = init3 }, want: "weight(float32, write)=3;"},
			}},
		optionFamily[nn.PReLUOptions]{layer: "PReLU", make: layerOf(nn.NewPReLU), in: ops.Shape{2, 3, 4},
			cases: []optionCase[nn.PReLUOptions]{
				{field: "InChannels", set: func(o *nn.PReLUOptions) { o.InChannels = 3 }, want: "declared alpha (3,)"},
				{field: "AlphaInit", set: func(o *nn.PReLUOptions) { o.AlphaInit = init3 }, want: "alpha(float32, write)=3;"},
			}},
		optionFamily[nn.DropoutOptions]{layer: "Dropout", in: ops.Shape{3, 4},
			make: layerOf(func(o ...nn.DropoutOptions) *nn.Dropout { return nn.NewDropout(0.5, o...) }),
			cases: []optionCase[nn.DropoutOptions]{
				{field: "Axes", set: func(o *nn.DropoutOptions) { o.Axes = []int{1} }, want: "axes=(1,)"},
			}},
	}
	for _, f := range families {
		t.Run(f.name(), f.run)
	}
}
