package nn_test

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/internal/torchtest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/nn/loss"
	"github.com/hybridgo/hybridgo/nn/optim"
	"github.com/hybridgo/hybridgo/ops"
)

//go:embed testdata/torch_onnx.py
var torchONNXScript string

// torchModel is one model that testdata/torch_onnx.py exported, with an
// input batch and PyTorch's output for it.
type torchModel struct {
	name    string
	x, want *eager.NDArray
}

// exportFromPyTorch runs testdata/torch_onnx.py in dir and reads what it
// wrote.
func exportFromPyTorch(t *testing.T, dir string, names ...string) []torchModel {
	t.Helper()
	torchtest.Require(t)
	out := torchtest.Run(t, dir, torchONNXScript, names...)
	var models []torchModel
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			t.Fatalf("unexpected line from the script: %q", sc.Text())
		}
		m := torchModel{name: f[0]}
		m.x = readFloat32s(t, filepath.Join(dir, f[0]+".in"), f[1])
		m.want = readFloat32s(t, filepath.Join(dir, f[0]+".out"), f[2])
		models = append(models, m)
	}
	if len(models) == 0 {
		t.Fatal("the script exported no models")
	}
	return models
}

func readFloat32s(t *testing.T, path, dims string) *eager.NDArray {
	t.Helper()
	var shape []int
	for _, d := range strings.Split(dims, ",") {
		n, err := strconv.Atoi(d)
		if err != nil {
			t.Fatal(err)
		}
		shape = append(shape, n)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float32, len(raw)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return eager.Array(v, shape...)
}

// closeTo fails the test unless got equals want to float32 rounding: the
// largest difference at most 1e-4 of the largest magnitude (at least 1),
// for sums of a few thousand products computed in another order.
func closeTo(t *testing.T, what string, got ops.Tensor, want *eager.NDArray) {
	t.Helper()
	g := got.(*eager.NDArray)
	if !g.Shape().Equal(want.Shape()) {
		t.Fatalf("%s: shape %s, want %s", what, g.Shape(), want.Shape())
	}
	scale, worst := 1.0, 0.0
	w := want.Float64s()
	for i, x := range g.Float64s() {
		scale = math.Max(scale, math.Abs(w[i]))
		worst = math.Max(worst, math.Abs(x-w[i]))
		if math.IsNaN(x) {
			worst = math.Inf(1)
		}
	}
	if worst > 1e-4*scale {
		t.Errorf("%s: differs from PyTorch's output by up to %g (largest magnitude %g)", what, worst, scale)
	}
}

// TestImportONNXFromPyTorch imports models that torch.onnx.export wrote
// (torchvision's networks, and two of ours that use the shape
// computations and many ops) and checks that each gives PyTorch's
// outputs eagerly and hybridized, at the batch PyTorch ran and at
// another (the batch dim is symbolic in the files).
func TestImportONNXFromPyTorch(t *testing.T) {
	dir := t.TempDir()
	models := exportFromPyTorch(t, dir)
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			net, err := nn.ImportONNX(filepath.Join(dir, m.name+".onnx"))
			if err != nil {
				t.Fatal(err)
			}
			if got := net.InputNames(); len(got) != 1 || got[0] != "input" {
				t.Errorf("inputs %v, want [input]", got)
			}
			closeTo(t, "eager", net.Forward(m.x), m.want)
			net.Hybridize()
			closeTo(t, "hybridized", net.Forward(m.x), m.want)
			first := eager.F.SliceAxis(m.x, 0, 0, 1)
			closeTo(t, "hybridized at batch 1", net.Forward(first), eager.F.SliceAxis(m.want, 0, 0, 1).(*eager.NDArray))
		})
	}
	t.Run("fine-tune and export", func(t *testing.T) { fineTuneAndExport(t, dir, models[0]) })
}

// fineTuneAndExport does with an imported model what a user leaving
// PyTorch for hybridgo, or passing through it, does: train it a few
// steps (the loss falls), then write it to ONNX and to MXNet's files, and
// read both back with the same outputs.
func fineTuneAndExport(t *testing.T, dir string, m torchModel) {
	if m.name != "view" {
		t.Fatalf("the first model is %s, want view", m.name)
	}
	net, err := nn.ImportONNX(filepath.Join(dir, "view.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	net.Hybridize()
	trainer, err := optim.NewTrainer(net.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.05}))
	if err != nil {
		t.Fatal(err)
	}
	// The model ends in softmax: train its output as probabilities with
	// the loss that takes them (from_logits), towards class 0.
	lossFn := loss.NewSoftmaxCrossEntropyLoss(loss.SoftmaxCELossOptions{FromLogits: true})
	labels := eager.Array([]float32{0, 1, 2})
	var losses []float64
	for range 5 {
		var l *eager.NDArray
		eager.Record(func() {
			p := net.Forward(m.x).(*eager.NDArray)
			l = lossFn.Loss(eager.F.Log(p), labels).(*eager.NDArray)
		})
		if err := l.Backward(); err != nil {
			t.Fatal(err)
		}
		if err := trainer.Step(3); err != nil {
			t.Fatal(err)
		}
		losses = append(losses, eager.F.Mean(l).(*eager.NDArray).Scalar())
	}
	if !(losses[4] < losses[0]) {
		t.Fatalf("the loss did not fall while fine-tuning: %v", losses)
	}
	tuned := net.Forward(m.x).(*eager.NDArray)

	path := filepath.Join(dir, "tuned.onnx")
	if err := net.ExportONNX(path, onnx.Options{}); err != nil {
		t.Fatal(err)
	}
	back, err := nn.ImportONNX(path)
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "ONNX written after fine-tuning, read back", back.Forward(m.x), tuned)

	prefix := filepath.Join(dir, "tuned")
	if err := net.Export(prefix, 0); err != nil {
		t.Fatal(err)
	}
	// Export names the input "data", as Gluon's export does.
	mx, err := nn.SymbolBlockImports(prefix+"-symbol.json", []string{"data"}, prefix+"-0000.params")
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "MXNet files written after fine-tuning, read back", mx.Forward(m.x), tuned)
}
