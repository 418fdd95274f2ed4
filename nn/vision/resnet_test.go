package vision_test

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/nn/vision"
	"github.com/hybridgo/hybridgo/ops"
)

// counts returns the number of values of all the parameters of m (as
// Gluon counts them, running statistics included) and of the running
// statistics alone.
func counts(m vision.Model) (all, running int) {
	for _, p := range m.CollectParams().List() {
		all += p.Shape().Size()
		if strings.HasSuffix(p.Name(), "_running_mean") || strings.HasSuffix(p.Name(), "_running_var") {
			running += p.Shape().Size()
		}
	}
	return all, running
}

// TestResNetParameters traces every ResNet on a 224x224 input (no kernel
// runs) and checks its parameter count and the names Export writes.
//
// The counts: resnet18_v1 and resnet50_v1 were worked out by hand from
// the architecture (resnet50_v1's 1x1 body convolutions have a bias in
// Gluon: 18,880 values more than the biasless network), the others
// follow from the same code. They agree with the published figures: the
// model zoo's 25.63M (resnet50_v1), 44.70M, 60.40M and 25.60M
// (resnet50_v2) count every parameter, running statistics included;
// 11.69M (resnet18_v1) and 21.80M (resnet34_v1) are the learned ones
// (11,689,512 and 21,797,672, the counts of the same networks elsewhere).
func TestResNetParameters(t *testing.T) {
	for _, tc := range []struct {
		name      string
		all       int
		published float64 // millions, rounded to 0.01; 0: none checked
		learned   bool    // published counts the learned parameters only
		first     []string
		last      string
	}{
		{"resnet18_v1", 11_699_112, 11.69, true, []string{"conv0_weight", "batchnorm0_gamma", "batchnorm0_beta", "batchnorm0_running_mean", "batchnorm0_running_var", "stage1_conv0_weight", "stage1_batchnorm0_gamma"}, "dense0_bias"},
		{"resnet34_v1", 21_814_696, 21.80, true, []string{"conv0_weight", "batchnorm0_gamma"}, "dense0_bias"},
		{"resnet50_v1", 25_629_032, 25.63, false, []string{"conv0_weight", "batchnorm0_gamma", "batchnorm0_beta", "batchnorm0_running_mean", "batchnorm0_running_var", "stage1_conv0_weight", "stage1_conv0_bias", "stage1_batchnorm0_gamma"}, "dense0_bias"},
		{"resnet101_v1", 44_695_144, 44.70, false, []string{"conv0_weight"}, "dense0_bias"},
		{"resnet152_v1", 60_404_072, 60.40, false, []string{"conv0_weight"}, "dense0_bias"},
		{"resnet18_v2", 11_695_796, 0, false, []string{"batchnorm0_gamma", "batchnorm0_beta", "batchnorm0_running_mean", "batchnorm0_running_var", "conv0_weight", "batchnorm1_gamma"}, "dense0_bias"},
		{"resnet34_v2", 21_811_380, 0, false, []string{"batchnorm0_gamma"}, "dense0_bias"},
		{"resnet50_v2", 25_595_060, 25.60, false, []string{"batchnorm0_gamma", "batchnorm0_beta", "batchnorm0_running_mean", "batchnorm0_running_var", "conv0_weight", "batchnorm1_gamma", "batchnorm1_beta", "batchnorm1_running_mean", "batchnorm1_running_var", "stage1_batchnorm0_gamma"}, "dense0_bias"},
		{"resnet101_v2", 44_639_412, 0, false, []string{"batchnorm0_gamma"}, "dense0_bias"},
		{"resnet152_v2", 60_329_140, 0, false, []string{"batchnorm0_gamma"}, "dense0_bias"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := vision.GetModel(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.InferShape(graph.Var("data", ops.Shape{1, 3, 224, 224}, ops.Float32)); err != nil {
				t.Fatal(err)
			}
			all, running := counts(m)
			if all != tc.all {
				t.Errorf("%d parameter values, want %d", all, tc.all)
			}
			if tc.published != 0 {
				n := all
				if tc.learned {
					n -= running
				}
				if got := math.Round(float64(n)/1e4) / 100; got != tc.published {
					t.Errorf("%.2fM parameters, published %.2fM", got, tc.published)
				}
			}
			names := m.CollectParams().Names()
			prefix := m.Name() + "_" // resnetv10_, resnetv21_, …
			if want := "resnetv" + tc.name[len(tc.name)-1:]; !strings.HasPrefix(prefix, want) {
				t.Errorf("model named %s, want %s<n>", m.Name(), want)
			}
			for i, want := range tc.first {
				if names[i] != prefix+want {
					t.Errorf("parameter %d is %s, want %s", i, names[i], prefix+want)
				}
			}
			if got := names[len(names)-1]; got != prefix+tc.last {
				t.Errorf("last parameter %s, want %s", got, prefix+tc.last)
			}
		})
	}
}

// TestResNetStageNames checks Gluon's naming inside the stages: the
// counters run on across the blocks of a stage, and a projected shortcut
// counts after its block's body.
func TestResNetStageNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string // in order, within the names
	}{
		{"resnet18_v1", []string{"stage1_conv0_weight", "stage1_conv1_weight", "stage1_conv2_weight", "stage1_conv3_weight",
			"stage2_conv0_weight", "stage2_batchnorm0_gamma", "stage2_conv1_weight", "stage2_batchnorm1_gamma", "stage2_conv2_weight", "stage2_batchnorm2_gamma", "stage2_conv3_weight",
			"stage4_conv4_weight", "dense0_weight"}},
		{"resnet50_v2", []string{"stage1_batchnorm0_gamma", "stage1_conv0_weight", "stage1_batchnorm1_gamma", "stage1_conv1_weight", "stage1_batchnorm2_gamma", "stage1_conv2_weight", "stage1_conv3_weight", "stage1_batchnorm3_gamma",
			"stage4_conv9_weight", "batchnorm1_gamma", "dense0_weight"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := vision.GetModel(tc.name, vision.Options{Classes: 10, Thumbnail: true})
			names := m.CollectParams().Names()
			i := 0
			for _, n := range names {
				if i < len(tc.want) && n == m.Name()+"_"+tc.want[i] {
					i++
				}
			}
			if i < len(tc.want) {
				t.Errorf("%s is missing or out of order in %v", tc.want[i], names)
			}
		})
	}
}

// TestResNetStructuralNames saves the parameters as Gluon's
// save_parameters names them and loads them into a new model of another
// name, as a file saved from Python loads.
func TestResNetStructuralNames(t *testing.T) {
	dir := t.TempDir()
	// A small bottleneck network, built as Gluon's ResNetV1(BottleneckV1,
	// [1, 1], [8, 16, 32]) is.
	small := func() vision.Model {
		return vision.NewResNetV1("bottle_neck", []int{1, 1}, []int{8, 16, 32}, vision.Options{Classes: 10})
	}
	for _, tc := range []struct {
		name string
		want []string // the first keys
		last []string
	}{
		{"small bottleneck v1", []string{"features.0.weight", "features.1.gamma", "features.1.beta", "features.1.running_mean", "features.1.running_var",
			"features.4.0.body.0.weight", "features.4.0.body.0.bias", "features.4.0.body.1.gamma"},
			[]string{"features.5.0.downsample.1.running_var", "output.weight", "output.bias"}},
		{"resnet18_v1", []string{"features.0.weight", "features.1.gamma", "features.1.beta", "features.1.running_mean", "features.1.running_var",
			"features.4.0.body.0.weight", "features.4.0.body.1.gamma"}, []string{"features.7.1.body.4.running_var", "output.weight", "output.bias"}},
		{"resnet18_v2", []string{"features.0.gamma", "features.0.beta", "features.0.running_mean", "features.0.running_var", "features.1.weight",
			"features.2.gamma", "features.2.beta", "features.2.running_mean", "features.2.running_var", "features.5.0.bn1.gamma"},
			[]string{"features.9.running_var", "output.weight", "output.bias"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newModel := func() vision.Model {
				if tc.name == "small bottleneck v1" {
					return small()
				}
				m, _ := vision.GetModel(tc.name, vision.Options{Classes: 10})
				return m
			}
			m := newModel()
			if err := m.Initialize(); err != nil {
				t.Fatal(err)
			}
			if err := m.InferShape(graph.Var("data", ops.Shape{1, 3, 64, 64}, ops.Float32)); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".params")
			if err := m.SaveParameters(file); err != nil {
				t.Fatal(err)
			}
			list, err := mxnet.LoadParams(file)
			if err != nil {
				t.Fatal(err)
			}
			keys := make([]string, len(list))
			for i, e := range list {
				keys[i] = e.Name
			}
			got := strings.Join(keys[:len(tc.want)], " ") + " … " + strings.Join(keys[len(keys)-len(tc.last):], " ")
			if want := strings.Join(tc.want, " ") + " … " + strings.Join(tc.last, " "); got != want {
				t.Errorf("keys\n%s\nwant\n%s", got, want)
			}
			fresh := newModel()
			if err := fresh.LoadParameters(file); err != nil {
				t.Fatal(err)
			}
			x := eager.RandomUniform(1, 3, 32, 32)
			assertClose(t, "reloaded", fresh.Forward(x), m.Forward(x))
		})
	}
}

// TestResNetForward runs the ResNets eagerly and hybridized on a small
// thumbnail input: the outputs agree and have one score per class.
func TestResNetForward(t *testing.T) {
	names := []string{"resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet18_v2", "resnet34_v2", "resnet50_v2"}
	if testing.Short() {
		names = []string{"resnet18_v1", "resnet18_v2"}
	}
	x := eager.RandomUniform(2, 3, 32, 32)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			m, _ := vision.GetModel(name, vision.Options{Classes: 10, Thumbnail: true})
			if err := m.Initialize(nn.InitializeOptions{Init: nn.Xavier()}); err != nil {
				t.Fatal(err)
			}
			want := m.Forward(x)
			if !want.Shape().Equal(ops.Shape{2, 10}) {
				t.Fatalf("output shape %v, want 2x10", want.Shape())
			}
			m.Hybridize()
			assertClose(t, "hybridized", m.Forward(x), want)
		})
	}
}

func assertClose(t *testing.T, what string, got, want ops.Tensor) {
	t.Helper()
	if !got.Shape().Equal(want.Shape()) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape(), want.Shape())
	}
	if d := optest.FirstDiff(got.Float64s(), want.Float64s(), 1e-4, 1e-5); d >= 0 {
		t.Fatalf("%s differs at %d: %v vs %v", what, d, got.Float64s()[d], want.Float64s()[d])
	}
}

func TestGetModel(t *testing.T) {
	models := strings.Join(vision.Models(), " ")
	for _, depth := range []int{18, 34, 50, 101, 152} {
		for _, v := range []int{1, 2} {
			if name := fmt.Sprintf("resnet%d_v%d", depth, v); !strings.Contains(" "+models+" ", " "+name+" ") {
				t.Errorf("Models() lacks %s: %s", name, models)
			}
		}
	}
	for _, tc := range []struct {
		name string
		err  func() error
		want []string
	}{
		{"unknown model", func() error { _, err := vision.GetModel("resnet19_v1"); return err }, []string{`"resnet19_v1"`, "resnet18_v1, resnet18_v2"}},
		{"bad depth", func() error { _, err := vision.GetResNet(1, 19); return err }, []string{"19 layers", "18, 34"}},
		{"bad version", func() error { _, err := vision.GetResNet(3, 18); return err }, []string{"version 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
	m, err := vision.GetModel("ResNet18_V1", vision.Options{Classes: 7})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.(*vision.ResNetV1); !ok || r.Output.Units != 7 {
		t.Errorf("GetModel(ResNet18_V1, Classes 7) = %T with output %v", m, m)
	}
}

func TestOptionsPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func()
		want string
	}{
		{"two options", func() { vision.ResNet18V1(vision.Options{}, vision.Options{}) }, "at most one"},
		{"negative classes", func() { vision.ResNet18V2(vision.Options{Classes: -1}) }, "Classes=-1"},
		{"bad block", func() { vision.NewResNetV1("basic", []int{1}, []int{8, 8}) }, `"basic"`},
		{"bad stages", func() { vision.NewResNetV2("basic_block", []int{1, 1}, []int{8, 8}) }, "one channel count more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("panic %v, want one mentioning %q", r, tc.want)
				}
			}()
			tc.fn()
		})
	}
}

// TestExport checks the node names Export writes against MXNet's and
// that the exported parameters load into a new model: for ResNet, a
// layer's output "_fwd", the shortcut's addition "_plus", the
// activations of HybridForward counted per stage, Flatten after its op;
// for DenseNet, a dense layer's concatenation counted in its stage's
// scope, its identity adding no node, and the transitions' layers in the
// network's scope.
func TestExport(t *testing.T) {
	small := vision.Options{Classes: 10, Thumbnail: true}
	for _, tc := range []struct {
		name string
		opts vision.Options
		size int      // the input image's side
		want []string // node names, in graph order
	}{
		{"resnet18_v1", small, 32, []string{"conv0_fwd", "stage1_conv0_fwd", "stage1_batchnorm0_fwd", "stage1_relu0_fwd", "stage1_conv1_fwd",
			"stage1_batchnorm1_fwd", "stage1__plus0", "stage1_activation0", "stage2__plus0", "stage4__plus1", "stage4_activation1", "pool0_fwd", "dense0_fwd"}},
		{"resnet18_v2", small, 32, []string{"batchnorm0_fwd", "conv0_fwd", "stage1_batchnorm0_fwd", "stage1_activation0", "stage1_conv0_fwd", "stage1__plus0",
			"batchnorm1_fwd", "relu0_fwd", "pool0_fwd", "flatten0_flatten0", "dense0_fwd"}},
		{"densenet121", vision.Options{Classes: 10}, 224, []string{"conv0_fwd", "batchnorm0_fwd", "relu0_fwd", "pool0_fwd",
			"stage1_batchnorm0_fwd", "stage1_relu0_fwd", "stage1_conv0_fwd", "stage1_batchnorm1_fwd",
			"stage1_relu1_fwd", "stage1_conv1_fwd", "stage1_concat0", "stage1_concat5",
			"batchnorm1_fwd", "relu1_fwd", "conv1_fwd", "pool1_fwd", "stage2_concat0", "stage4_concat15",
			"batchnorm4_fwd", "relu4_fwd", "pool4_fwd", "flatten0_flatten0", "dense0_fwd"}},
		{"inceptionv3", vision.Options{Classes: 10}, 299, []string{"conv0_fwd", "batchnorm0_fwd", "relu0_fwd", "pool0_fwd",
			"conv4_fwd", "pool1_fwd", "A1_conv0_fwd", "A1_pool0_fwd", "A1_conv6_fwd", "A1_concat0",
			"B_pool0_fwd", "B_concat0", "C4_concat0", "D_concat0", "E1_conv2_fwd", "E1_concat0", "E1_concat1",
			"E1_concat2", "E2_concat2", "pool2_fwd", "dropout0_fwd", "dense0_fwd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := vision.GetModel(tc.name, tc.opts)
			if err := m.Initialize(); err != nil {
				t.Fatal(err)
			}
			m.Hybridize()
			x := eager.RandomUniform(1, 3, tc.size, tc.size)
			y := m.Forward(x)
			prefix := filepath.Join(t.TempDir(), tc.name)
			if err := m.Export(prefix, 0); err != nil {
				t.Fatal(err)
			}
			sym, err := mxnet.LoadSymbol(prefix + "-symbol.json")
			if err != nil {
				t.Fatal(err)
			}
			var nodes []string
			for _, n := range sym.Graph().Nodes {
				if n.Op != nil {
					nodes = append(nodes, n.Name)
				}
			}
			i := 0
			for _, n := range nodes {
				if i < len(tc.want) && n == m.Name()+"_"+tc.want[i] {
					i++
				}
			}
			if i < len(tc.want) {
				t.Errorf("node %s is missing or out of order in %v", tc.want[i], nodes)
			}
			fresh, _ := vision.GetModel(tc.name, tc.opts)
			if err := fresh.LoadParameters(prefix + "-0000.params"); err != nil {
				t.Fatal(err)
			}
			assertClose(t, "loaded from the export", fresh.Forward(x), y)
		})
	}
}

// Every registered name builds its model, with the classes asked for.
func TestGetModelBuildsEveryModel(t *testing.T) {
	names := vision.Models()
	for _, want := range []string{"alexnet", "mobilenet0.25", "mobilenetv2_1.0", "squeezenet1.1", "vgg19_bn", "resnet152_v2"} {
		if !slices.Contains(names, want) {
			t.Errorf("Models() lacks %s: %v", want, names)
		}
	}
	for _, name := range names {
		m, err := vision.GetModel(name, vision.Options{Classes: 7})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		params := m.CollectParams().List()
		var last *nn.Parameter
		for _, p := range params {
			if strings.HasSuffix(p.Name(), "weight") {
				last = p
			}
		}
		if last == nil || last.Shape()[0] != 7 {
			t.Errorf("%s: the output layer's weight is %v, want 7 rows", name, last)
		}
	}
}
