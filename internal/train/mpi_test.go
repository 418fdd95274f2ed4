//go:build mpi && !race

package train

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/data"
	"github.com/hybridgo/hybridgo/internal/mpi/mpitest"
)

// distOptions is a short run: two epochs over a fifth of the training set.
func distOptions(kvstore string) Options {
	return Options{Epochs: 2, BatchSize: 128, LR: 0.002, Seed: 1, StaticAlloc: true, Limit: 12000, KVStore: kvstore}
}

// TestMPITrainWorker is a rank of TestMPITrainTwoRanks's job.
func TestMPITrainWorker(t *testing.T) {
	if mpitest.Scenario() != "lenet" {
		t.Skip("a rank of the mpirun job that TestMPITrainTwoRanks starts")
	}
	epochs, _, err := Run(distOptions("dist_sync"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("HYBRIDGO_MPI_OUT"); epochs[0].TestAcc > 0 {
		b, _ := json.Marshal(epochs)
		if err := os.WriteFile(filepath.Join(out, "epochs.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// LeNet on Fashion-MNIST with two ranks, each on half of every batch,
// reaches the test accuracy of one process in the same number of epochs.
func TestMPITrainTwoRanks(t *testing.T) {
	if mpitest.Scenario() != "" {
		t.Skip()
	}
	if _, err := os.Stat(filepath.Join(data.FashionMNISTDir, "train-images-idx3-ubyte.gz")); err != nil {
		t.Fatalf("Fashion-MNIST is not installed in %s (apt-get install dataset-fashion-mnist; make test does it)", data.FashionMNISTDir)
	}
	dir := t.TempDir()
	r := mpitest.Run(t, 2, "TestMPITrainWorker", "lenet", 5*time.Minute, "HYBRIDGO_MPI_OUT="+dir)
	if r.Err != nil {
		t.Fatalf("mpirun: %v\n%s", r.Err, r.Output)
	}
	b, err := os.ReadFile(filepath.Join(dir, "epochs.json"))
	if err != nil {
		t.Fatalf("rank 0 wrote no results: %v\n%s", err, r.Output)
	}
	var two []Epoch
	if err := json.Unmarshal(b, &two); err != nil {
		t.Fatal(err)
	}
	one, _, err := Run(distOptions(""), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range one {
		t.Logf("epoch %d: one process: loss %.4f, test accuracy %.4f, %d steps in %v; two ranks: loss %.4f, test accuracy %.4f, %d steps in %v (allreduce %v)",
			i+1, one[i].Loss, one[i].TestAcc, one[i].Steps, one[i].TrainTime, two[i].Loss, two[i].TestAcc, two[i].Steps, two[i].TrainTime, two[i].Allreduce)
	}
	if len(two) != len(one) {
		t.Fatalf("%d epochs on two ranks, %d on one", len(two), len(one))
	}
	last1, last2 := one[len(one)-1], two[len(two)-1]
	if last1.TestAcc < 0.7 {
		t.Errorf("one process reached test accuracy %.4f, want at least 0.7", last1.TestAcc)
	}
	if math.Abs(last2.TestAcc-last1.TestAcc) > 0.02 {
		t.Errorf("test accuracy %.4f on two ranks, %.4f on one", last2.TestAcc, last1.TestAcc)
	}
	if last2.Steps != last1.Steps || last2.Allreduce <= 0 {
		t.Errorf("two ranks made %d steps (allreduce %v), one process %d", last2.Steps, last2.Allreduce, last1.Steps)
	}
}
