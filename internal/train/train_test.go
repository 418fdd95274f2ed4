//go:build !race

// The race detector makes training several times slower; `make test` runs
// this test in its own step without it.

package train

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/data"
)

// The tutorial's LeNet, hybridized, reaches 85% test accuracy on
// Fashion-MNIST in three epochs.
func TestTrainFashionMNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("training takes about a minute; skipped under -short")
	}
	if _, err := os.Stat(filepath.Join(data.FashionMNISTDir, "train-images-idx3-ubyte.gz")); err != nil {
		t.Skipf("Fashion-MNIST is not installed in %s (apt-get install dataset-fashion-mnist; make test does it)", data.FashionMNISTDir)
	}
	var progress bytes.Buffer
	save := filepath.Join(t.TempDir(), "lenet.params")
	epochs, _, err := Run(Options{Epochs: 3, BatchSize: 128, LR: 0.002, Seed: 1, StaticAlloc: true, Save: save}, &progress)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range epochs {
		t.Logf("epoch %d: loss %.4f, train accuracy %.4f, test accuracy %.4f, %v", i+1, e.Loss, e.TrainAcc, e.TestAcc, e.Time)
	}
	if last := epochs[len(epochs)-1]; last.TestAcc < 0.85 {
		t.Errorf("test accuracy %.4f after %d epochs, want at least 0.85", last.TestAcc, len(epochs))
	}
	if epochs[len(epochs)-1].Loss >= epochs[0].Loss {
		t.Errorf("the loss did not fall: %v", epochs)
	}
	if !strings.Contains(progress.String(), "epoch 3/3: loss") || !strings.Contains(progress.String(), "saved the parameters") {
		t.Errorf("progress output:\n%s", progress.String())
	}
	// LeNet has 44426 float32 parameters.
	if st, err := os.Stat(save); err != nil {
		t.Errorf("no saved parameters: %v", err)
	} else if st.Size() < 4*44426 {
		t.Errorf("saved parameters take %d bytes, want at least %d", st.Size(), 4*44426)
	}
}

func TestRunRejectsBadOptions(t *testing.T) {
	if _, _, err := Run(Options{Epochs: 0, BatchSize: 1, LR: 1}, nil); err == nil || !strings.Contains(err.Error(), "must be positive") {
		t.Errorf("got %v", err)
	}
	_, _, err := Run(Options{Epochs: 1, BatchSize: 1, LR: 1, Dir: t.TempDir()}, nil)
	if err == nil || !strings.Contains(err.Error(), "apt-get install dataset-fashion-mnist") {
		t.Errorf("missing dataset: %v", err)
	}
}
