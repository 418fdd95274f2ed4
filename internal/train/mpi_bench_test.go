//go:build mpi && !race

package train

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/mpi"
	"github.com/hybridgo/hybridgo/internal/mpi/mpitest"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/nn/loss"
	"github.com/hybridgo/hybridgo/nn/optim"
	"github.com/hybridgo/hybridgo/nn/vision"
	"github.com/hybridgo/hybridgo/ops"
)

// benchCase is one distributed training loop to time.
type benchCase struct {
	Model     string // "lenet" (28x28 images) or "resnet18" (64x64)
	NP        int    // ranks
	Batch     int    // samples per step over all ranks
	Hybridize bool
	Overlap   bool
	Steps     int
}

func (c benchCase) name() string {
	mode := "eager"
	if c.Hybridize {
		mode = "hybridized"
	}
	comm := "after-backward"
	if c.Overlap {
		comm = "overlap"
	}
	return fmt.Sprintf("%s/b%d/%s/np%d/%s", c.Model, c.Batch, mode, c.NP, comm)
}

// benchResult is what rank 0 measured.
type benchResult struct {
	StepsPerSec   float64
	AllreduceMs   float64 // per step, the time Step waited for the sums
	RawMs         float64 // one allreduce of all the gradients at once
	GradientBytes int
	InBackward    float64 // share of the gradient elements whose allreduce started before Backward returned
}

// countingStore counts the elements of the allreduces started.
type countingStore struct {
	optim.KVStore
	started int
}

func (s *countingStore) StartAllreduce(data any) optim.Waiter {
	switch d := data.(type) {
	case []float32:
		s.started += len(d)
	case []float64:
		s.started += len(d)
	}
	return s.KVStore.StartAllreduce(data)
}

type model interface {
	Forward(x ops.Tensor) ops.Tensor
	Initialize(opts ...nn.InitializeOptions) error
	Hybridize(opts ...nn.HybridizeOptions)
	CollectParams(pattern ...string) *nn.ParameterDict
}

// TestMPIBenchWorker is a rank of BenchmarkMPITraining's jobs.
func TestMPIBenchWorker(t *testing.T) {
	if mpitest.Scenario() != "bench" {
		t.Skip("a rank of the mpirun jobs that BenchmarkMPITraining starts")
	}
	var c benchCase
	if err := json.Unmarshal([]byte(os.Getenv("HYBRIDGO_MPI_BENCH")), &c); err != nil {
		t.Fatal(err)
	}
	mpiStore, err := optim.NewKVStore("dist_sync")
	if err != nil {
		t.Fatal(err)
	}
	defer mpiStore.Close()
	store := &countingStore{KVStore: mpiStore}
	eager.Seed(1)
	var net model
	var x *eager.NDArray
	local := c.Batch / store.NumWorkers()
	switch c.Model {
	case "lenet":
		net, x = NewLeNet(), eager.RandomUniform(local, 1, 28, 28)
	case "resnet18":
		net, x = vision.ResNet18V1(vision.Options{Classes: 10}), eager.RandomUniform(local, 3, 64, 64)
	}
	y := eager.F.Floor(eager.F.MulScalar(eager.RandomUniform(local), 10)).(*eager.NDArray)
	if err := net.Initialize(nn.InitializeOptions{Init: nn.Xavier()}); err != nil {
		t.Fatal(err)
	}
	if c.Hybridize {
		net.Hybridize(nn.HybridizeOptions{StaticAlloc: true})
	}
	tr, err := optim.NewTrainer(net.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.01, Momentum: 0.9}),
		optim.TrainerOptions{Store: store, Overlap: c.Overlap})
	if err != nil {
		t.Fatal(err)
	}
	lossFn := loss.NewSoftmaxCrossEntropyLoss()
	inBackward, all := 0, 0
	step := func() {
		var l *eager.NDArray
		eager.Record(func() { l = lossFn.Loss(net.Forward(x), y).(*eager.NDArray) })
		s0 := store.started
		if err := l.Backward(); err != nil {
			t.Fatal(err)
		}
		inBackward += store.started - s0
		if err := tr.Step(local); err != nil {
			t.Fatal(err)
		}
		all += store.started - s0
	}
	for range 2 { // warm up: shapes, buckets, hooks
		step()
	}
	if err := store.Barrier(); err != nil {
		t.Fatal(err)
	}
	inBackward, all = 0, 0
	comm, start := tr.AllreduceTime(), time.Now()
	for range c.Steps {
		step()
	}
	elapsed := time.Since(start)
	res := benchResult{StepsPerSec: float64(c.Steps) / elapsed.Seconds(),
		AllreduceMs: float64((tr.AllreduceTime() - comm).Microseconds()) / 1e3 / float64(c.Steps)}
	n := 0
	for _, p := range net.CollectParams().List() {
		if !p.IsConstant() && p.GradReq() != eager.GradNull {
			n += p.Data().Size()
		}
	}
	res.GradientBytes = 4 * n
	res.InBackward = float64(inBackward) / float64(max(all, 1))
	buf := make([]float32, n)
	if err := store.Barrier(); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	for range c.Steps {
		if err := mpi.Allreduce(buf); err != nil {
			t.Fatal(err)
		}
	}
	res.RawMs = float64(time.Since(start).Microseconds()) / 1e3 / float64(c.Steps)
	if store.Rank() == 0 {
		b, _ := json.Marshal(res)
		if err := os.WriteFile(filepath.Join(os.Getenv("HYBRIDGO_MPI_OUT"), "bench.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkMPITraining times training loops under mpirun on this
// machine: steps per second on 1 and 2 ranks, the time each step waits
// for the allreduce, and one allreduce of all the gradients alone; with
// the allreduce after the backward pass and overlapping it (and how much
// of the gradients started their allreduce before Backward returned). Each
// iteration is one job. HYBRIDGO_MPI_BENCH_MODELS picks the models
// (default lenet,resnet18).
//
//	go test -tags mpi -run '^$' -bench MPITraining -benchtime 1x ./internal/train/
func BenchmarkMPITraining(b *testing.B) {
	models := "lenet,resnet18"
	if m := os.Getenv("HYBRIDGO_MPI_BENCH_MODELS"); m != "" {
		models = m
	}
	var cases []benchCase
	for _, m := range strings.Split(models, ",") {
		batch, steps := 128, 40
		if m == "resnet18" {
			batch, steps = 8, 6
		}
		for _, np := range []int{1, 2} {
			cases = append(cases, benchCase{Model: m, NP: np, Batch: batch, Hybridize: true, Steps: steps})
		}
		cases = append(cases, benchCase{Model: m, NP: 2, Batch: batch, Hybridize: true, Overlap: true, Steps: steps})
		cases = append(cases, benchCase{Model: m, NP: 1, Batch: batch, Steps: steps})
		for _, overlap := range []bool{false, true} {
			cases = append(cases, benchCase{Model: m, NP: 2, Batch: batch, Overlap: overlap, Steps: steps})
		}
	}
	for _, c := range cases {
		b.Run(c.name(), func(b *testing.B) {
			spec, _ := json.Marshal(c)
			var sum benchResult
			for range b.N {
				dir := b.TempDir()
				r := mpitest.Run(b, c.NP, "TestMPIBenchWorker", "bench", 10*time.Minute,
					"HYBRIDGO_MPI_OUT="+dir, "HYBRIDGO_MPI_BENCH="+string(spec))
				if r.Err != nil {
					b.Fatalf("mpirun: %v\n%s", r.Err, r.Output)
				}
				data, err := os.ReadFile(filepath.Join(dir, "bench.json"))
				if err != nil {
					b.Fatalf("no result: %v\n%s", err, r.Output)
				}
				var res benchResult
				if err := json.Unmarshal(data, &res); err != nil {
					b.Fatal(err)
				}
				sum.StepsPerSec += res.StepsPerSec
				sum.AllreduceMs += res.AllreduceMs
				sum.RawMs += res.RawMs
				sum.GradientBytes = res.GradientBytes
				sum.InBackward = res.InBackward
			}
			n := float64(b.N)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(sum.StepsPerSec/n, "steps/s")
			b.ReportMetric(sum.AllreduceMs/n, "allreduce-ms/step")
			b.ReportMetric(sum.RawMs/n, "raw-allreduce-ms")
			b.ReportMetric(float64(sum.GradientBytes), "grad-bytes")
			b.ReportMetric(100*sum.InBackward, "%started-in-backward")
		})
	}
}
