//go:build mpi && !race

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/data"
	"github.com/hybridgo/hybridgo/internal/mpi"
	"github.com/hybridgo/hybridgo/internal/mpi/mpitest"
)

// TestMPICommandWorker is a rank of the jobs below: it runs the command
// line in HYBRIDGO_MPI_ARGS (separated by spaces) as main does.
func TestMPICommandWorker(t *testing.T) {
	if mpitest.Scenario() != "command" {
		t.Skip("a rank of the mpirun jobs that the MPI tests of cmd/hybridgo start")
	}
	code := run(strings.Fields(os.Getenv("HYBRIDGO_MPI_ARGS")), os.Stdout, os.Stderr)
	if code == 0 {
		if err := mpi.Finalize(); err != nil {
			t.Fatal(err)
		}
	}
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func needFashionMNIST(t *testing.T) {
	if _, err := os.Stat(filepath.Join(data.FashionMNISTDir, "train-images-idx3-ubyte.gz")); err != nil {
		t.Fatalf("Fashion-MNIST is not installed in %s (apt-get install dataset-fashion-mnist; make test does it)", data.FashionMNISTDir)
	}
}

// mpirun -np 2 hybridgo train -kvstore dist_sync: one header, one line
// per epoch, from rank 0 only, and the parameters saved once.
func TestMPITrainCommand(t *testing.T) {
	if mpitest.Scenario() != "" {
		t.Skip()
	}
	needFashionMNIST(t)
	dir := t.TempDir()
	r := mpitest.RunIn(t, dir, 2, "TestMPICommandWorker", "command", 3*time.Minute,
		"HYBRIDGO_MPI_ARGS=train -kvstore dist_sync -overlap -epochs 2 -limit 2560 -batch 64 -save lenet.params")
	if r.Err != nil {
		t.Fatalf("mpirun: %v\n%s", r.Err, r.Output)
	}
	for what, n := range map[string]int{
		"training LeNet on Fashion-MNIST (hybridized, dist_sync over 2 workers, batch 64": 1,
		"epoch 1/2: loss": 1, "epoch 2/2: loss": 1, "(2 workers, ": 2, "saved the parameters": 1,
	} {
		if got := strings.Count(r.Output, what); got != n {
			t.Errorf("%q appears %d times, want %d:\n%s", what, got, n, r.Output)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "lenet.params")); err != nil {
		t.Errorf("no parameters saved: %v", err)
	}
}

// The script of docs/distributed.md, run as mpirun -np 2 hybridgo run
// train.go, trains with the loss falling, prints from rank 0 only and
// saves once.
func TestMPIRunTutorialScript(t *testing.T) {
	if mpitest.Scenario() != "" {
		t.Skip()
	}
	needFashionMNIST(t)
	doc, err := os.ReadFile("../../docs/distributed.md")
	if err != nil {
		t.Fatal(err)
	}
	sec, _, _ := strings.Cut(string(doc), "## What the trainer does")
	_, sec, _ = strings.Cut(sec, "## Your own training script")
	var cells []string
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(sec, -1) {
		cells = append(cells, m[1])
	}
	if len(cells) < 4 {
		t.Fatalf("found %d go cells in docs/distributed.md", len(cells))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "train.go"), []byte(strings.Join(cells, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mpitest.RunIn(t, dir, 2, "TestMPICommandWorker", "command", 5*time.Minute, "HYBRIDGO_MPI_ARGS=run train.go")
	if r.Err != nil {
		t.Fatalf("mpirun: %v\n%s", r.Err, r.Output)
	}
	losses := regexp.MustCompile(`epoch (\d): loss ([0-9.]+) \(rank 0's shard\)`).FindAllStringSubmatch(r.Output, -1)
	if len(losses) != 3 {
		t.Fatalf("want 3 epoch lines (rank 0 only):\n%s", r.Output)
	}
	first, _ := strconv.ParseFloat(losses[0][2], 64)
	last, _ := strconv.ParseFloat(losses[2][2], 64)
	if !(last < first) {
		t.Errorf("the loss did not fall: %v", losses)
	}
	if _, err := os.Stat(filepath.Join(dir, "lenet.params")); err != nil {
		t.Errorf("no parameters saved: %v", err)
	}
}
