package ops_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/ops"
)

// requiredOps are the MXNet op names that models and tutorials rely on;
// each must be registered under that name or as an alias.
const requiredOps = `
elemwise_add elemwise_sub elemwise_mul elemwise_div broadcast_add broadcast_sub broadcast_mul broadcast_div
broadcast_mod broadcast_power broadcast_maximum broadcast_minimum broadcast_hypot _plus_scalar _minus_scalar
_rminus_scalar _mul_scalar _div_scalar _rdiv_scalar _mod_scalar _power_scalar _rpower_scalar _maximum_scalar
_minimum_scalar add_n
broadcast_equal broadcast_not_equal broadcast_greater broadcast_greater_equal broadcast_lesser broadcast_lesser_equal
broadcast_logical_and broadcast_logical_or broadcast_logical_xor _equal_scalar _not_equal_scalar _greater_scalar
_greater_equal_scalar _lesser_scalar _lesser_equal_scalar _logical_and_scalar _logical_or_scalar _logical_xor_scalar
logical_not
negative abs sign exp expm1 log log1p log2 sqrt rsqrt cbrt square reciprocal sin cos tan arcsin arccos arctan sinh
cosh tanh sigmoid relu softsign erf floor ceil round trunc clip
log10 arcsinh arccosh arctanh rint rcbrt radians degrees hard_sigmoid softmin LRN _contrib_AdaptiveAvgPooling2D
depth_to_space space_to_depth cumsum moments MakeLoss make_loss LinearRegressionOutput LogisticRegressionOutput MAERegressionOutput
Activation LeakyReLU
sum mean max min prod nansum argmax argmin norm softmax log_softmax SoftmaxOutput softmax_cross_entropy smooth_l1
dot batch_dot FullyConnected Convolution Deconvolution Pooling BatchNorm LayerNorm Dropout Embedding
Reshape Flatten transpose expand_dims squeeze Concat stack SliceChannel split slice slice_axis slice_like take pick
one_hot where tile repeat flip broadcast_to broadcast_like reshape_like shape_array size_array
zeros_like ones_like _zeros _ones _full _arange _eye random_uniform random_normal Cast BlockGrad identity
`

func TestRequiredOpsAreRegistered(t *testing.T) {
	for _, name := range strings.Fields(requiredOps) {
		if _, ok := ops.Lookup(name); !ok {
			t.Errorf("no op named %s", name)
		}
	}
}

// TestEveryOpHasAKind walks the registry: each op names one of Kinds,
// and the kinds a layer's ops have are the ones drawings colour it by.
func TestEveryOpHasAKind(t *testing.T) {
	for _, op := range ops.All() {
		if !slices.Contains(ops.Kinds(), op.Kind()) {
			t.Errorf("%s: kind %q is not one of %v", op.Name(), op.Kind(), ops.Kinds())
		}
	}
	for name, want := range map[string]string{
		"Convolution": "conv", "_backward_Convolution_weight": "conv", "FullyConnected": "dense",
		"Pooling": "pool", "BatchNorm": "norm", "relu": "activation", "Activation": "activation",
		"_backward_relu": "activation", "exp": "elementwise", "_plus_scalar": "elementwise",
		"Reshape": "shape", "sum": "reduce", "softmax": "softmax", "SoftmaxOutput": "loss",
		"smooth_l1": "loss", "Dropout": "other",
	} {
		if got := ops.MustLookup(name).Kind(); got != want {
			t.Errorf("%s: kind %q, want %q", name, got, want)
		}
	}
}

func TestRegisterRequiresAKnownKind(t *testing.T) {
	def := ops.Def[ops.NoAttrs]{
		Name:   "_test_kindless",
		Inputs: []string{"data"},
		Shape:  func(_ *ops.NoAttrs, in []ops.Shape) ([]ops.Shape, error) { return in, nil },
		Kernel: func(*ops.Env, *ops.NoAttrs, []ops.Value, []ops.Value) error { return nil },
	}
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", what)
			}
		}()
		f()
	}
	mustPanic("Register with no Kind", func() { ops.Register(def) })
	def.Kind = "sparkly"
	mustPanic("Define with an unknown Kind", func() { ops.Define(def) })
	def.Kind = ""
	if got := ops.Define(def).Kind(); got != "other" {
		t.Errorf("Define with no Kind: kind %q, want other", got)
	}
}
