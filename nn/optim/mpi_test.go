//go:build mpi

package optim_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/mpi/mpitest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/nn/loss"
	"github.com/hybridgo/hybridgo/nn/optim"
	"github.com/hybridgo/hybridgo/ops"
)

const (
	smallSteps = 6
	smallBatch = 8
)

// trainSmall trains a two-layer net of dtype for smallSteps steps of
// SGD with momentum on a batch of smallBatch samples, of which this worker
// takes its part, and returns the parameters. Each rank starts from its
// own random values, so only the broadcast from rank 0 makes them agree.
// At step dieAt (>= 0) rank 1 plays a failure: "die" exits, "hang"
// stops answering.
func trainSmall(t *testing.T, dtype ops.DType, hybridize, overlap bool, store optim.KVStore, fail string, dieAt int) [][]float64 {
	t.Helper()
	rank, n := 0, 1
	if store != nil {
		rank, n = store.Rank(), store.NumWorkers()
	}
	eager.Seed(uint64(1 + rank))
	net := nn.NewHybridSequential(
		nn.NewDense(16, nn.DenseOptions{Act: "relu", DType: dtype, InUnits: 6}),
		nn.NewDense(4, nn.DenseOptions{DType: dtype, InUnits: 16}))
	if err := net.Initialize(nn.InitializeOptions{Init: nn.Xavier()}); err != nil {
		t.Fatal(err)
	}
	if hybridize {
		net.Hybridize()
	}
	// The same data on every rank.
	rng := rand.New(rand.NewPCG(99, 0))
	xs, ys := make([]float64, smallSteps*smallBatch*6), make([]float64, smallSteps*smallBatch)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	for i := range ys {
		ys[i] = float64(rng.IntN(4))
	}
	x := eager.F.Cast(eager.Array(xs, len(ys), 6), dtype).(*eager.NDArray)
	y := eager.F.Cast(eager.Array(ys, len(ys)), dtype).(*eager.NDArray)
	tr, err := optim.NewTrainer(net.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.1, Momentum: 0.9}),
		optim.TrainerOptions{Store: store, BucketBytes: 300, Overlap: overlap})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.BroadcastParameters(); err != nil {
		t.Fatal(err)
	}
	lossFn := loss.NewSoftmaxCrossEntropyLoss()
	local := smallBatch / n
	for s := range smallSteps {
		if s == dieAt && rank == 1 {
			switch fail {
			case "die":
				os.Exit(3)
			case "hang":
				time.Sleep(10 * time.Minute)
			}
		}
		lo := s*smallBatch + rank*local
		xb := eager.F.SliceAxis(x, 0, lo, lo+local).(*eager.NDArray)
		yb := eager.F.SliceAxis(y, 0, lo, lo+local).(*eager.NDArray)
		var l *eager.NDArray
		eager.Record(func() { l = lossFn.Loss(net.Forward(xb), yb).(*eager.NDArray) })
		if err := l.Backward(); err != nil {
			t.Fatal(err)
		}
		if err := tr.Step(local); err != nil {
			t.Fatal(err)
		}
	}
	var out [][]float64
	for _, p := range net.CollectParams().List() {
		out = append(out, p.Data().Float64s())
	}
	return out
}

// TestMPIWorker is one rank of the jobs the tests below start; outside
// mpirun it does nothing.
func TestMPIWorker(t *testing.T) {
	sc := mpitest.Scenario()
	if sc == "" {
		t.Skip("a rank of the mpirun jobs that the other tests start")
	}
	store, err := optim.NewKVStore("horovod")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if store.Type() != "dist_sync" || store.NumWorkers() != 2 {
		t.Fatalf("store %s of %d workers", store.Type(), store.NumWorkers())
	}
	switch sc {
	case "same":
		res := map[string][][]float64{
			"float32":            trainSmall(t, ops.Float32, true, false, store, "", -1),
			"float64":            trainSmall(t, ops.Float64, false, false, store, "", -1),
			"float32 overlap":    trainSmall(t, ops.Float32, false, true, store, "", -1),
			"hybridized overlap": trainSmall(t, ops.Float32, true, true, store, "", -1),
		}
		b, _ := json.Marshal(res)
		if err := os.WriteFile(filepath.Join(os.Getenv("HYBRIDGO_MPI_OUT"), "rank"+strconv.Itoa(store.Rank())+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	case "die", "hang":
		trainSmall(t, ops.Float32, true, false, store, sc, 3)
	}
}

// Two ranks, each with half of every batch, end with the parameters of
// one process trained on the whole batches, in float32 and float64, and
// with the allreduce overlapping the backward pass.
func TestMPITwoRanksMatchOneProcess(t *testing.T) {
	if mpitest.Scenario() != "" {
		t.Skip()
	}
	dir := t.TempDir()
	r := mpitest.Run(t, 2, "TestMPIWorker", "same", 2*time.Minute, "HYBRIDGO_MPI_OUT="+dir)
	if r.Err != nil {
		t.Fatalf("mpirun: %v\n%s", r.Err, r.Output)
	}
	want := map[string][][]float64{
		"float32":            trainSmall(t, ops.Float32, true, false, nil, "", -1),
		"float64":            trainSmall(t, ops.Float64, false, false, nil, "", -1),
		"float32 overlap":    trainSmall(t, ops.Float32, false, false, nil, "", -1),
		"hybridized overlap": trainSmall(t, ops.Float32, true, false, nil, "", -1),
	}
	tol := map[string]float64{"float32": 1e-5, "float64": 1e-12, "float32 overlap": 1e-5, "hybridized overlap": 1e-5}
	for rank := range 2 {
		b, err := os.ReadFile(filepath.Join(dir, "rank"+strconv.Itoa(rank)+".json"))
		if err != nil {
			t.Fatalf("rank %d wrote no parameters: %v\n%s", rank, err, r.Output)
		}
		var got map[string][][]float64
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		for dt, ps := range want {
			if len(got[dt]) != len(ps) {
				t.Fatalf("rank %d %s: %d parameters, want %d", rank, dt, len(got[dt]), len(ps))
			}
			for i, p := range ps {
				for j, w := range p {
					if g := got[dt][i][j]; math.Abs(g-w) > tol[dt]*(1+math.Abs(w)) {
						t.Fatalf("rank %d %s parameter %d element %d: %v, one process %v", rank, dt, i, j, g, w)
					}
				}
			}
		}
	}
}

// A rank that dies in the middle of training ends the job, with mpirun
// naming it, in seconds.
func TestMPIRankDies(t *testing.T) {
	if mpitest.Scenario() != "" {
		t.Skip()
	}
	r := mpitest.Run(t, 2, "TestMPIWorker", "die", time.Minute)
	if r.Err == nil {
		t.Fatalf("the job succeeded:\n%s", r.Output)
	}
	if !strings.Contains(r.Output, "exited with non-zero status") || !strings.Contains(r.Output, "Exit code:    3") {
		t.Errorf("mpirun's message does not name the rank that died:\n%s", r.Output)
	}
	if r.Elapsed > 30*time.Second {
		t.Errorf("the job took %v to end", r.Elapsed)
	}
}

// A rank that stops answering (alive, but never reaching the next
// allreduce) makes the other abort the job after the timeout, saying so.
func TestMPIRankHangs(t *testing.T) {
	if mpitest.Scenario() != "" {
		t.Skip()
	}
	r := mpitest.Run(t, 2, "TestMPIWorker", "hang", time.Minute, "HYBRIDGO_MPI_TIMEOUT=3s")
	if r.Err == nil {
		t.Fatalf("the job succeeded:\n%s", r.Output)
	}
	if !strings.Contains(r.Output, "rank 0 of 2: Allreduce has waited 3s for the other workers; a worker has died or stopped: aborting the job") {
		t.Errorf("no timeout message:\n%s", r.Output)
	}
	if r.Elapsed > 30*time.Second {
		t.Errorf("the job took %v to end", r.Elapsed)
	}
}
