// Package bench times hybridgo side by side with PyTorch and NumPy on the
// same workloads: SGEMM, the LeNet of MXNet's hybridize tutorial (forward
// and a training step) and a small MLP. The Go side of every case lives
// here; the Python side is in bench/torch.
package bench

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/hybridgo/hybridgo/accel"
	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// Implementations, as they appear in a Result's Impl.
const (
	ImplOursEager  = "ours-eager"
	ImplOursHybrid = "ours-hybrid"
	ImplTorchEager = "torch-eager"
	ImplTorchJIT   = "torch-jit"
	ImplNumPy      = "numpy"
)

// Case is one workload.
type Case struct {
	Name  string
	Title string // what the table says about it
	// Ours lists the implementations of ours that the case has.
	Ours []string
	// setup builds the workload for one implementation and returns one run.
	setup func(impl string) (func() error, error)
}

// Cases returns every workload, in the order of the table.
func Cases() []Case {
	var cs []Case
	for _, n := range []int{128, 256, 512, 1024, 2048} {
		cs = append(cs, Case{
			Name:  fmt.Sprintf("sgemm-%d", n),
			Title: fmt.Sprintf("SGEMM %d×%d×%d", n, n, n),
			Ours:  []string{ImplOursEager},
			setup: func(string) (func() error, error) { return sgemm(n), nil },
		})
	}
	for _, b := range []int{1, 16, 256} {
		cs = append(cs, Case{
			Name:  fmt.Sprintf("lenet-forward-b%d", b),
			Title: fmt.Sprintf("LeNet forward, batch %d", b),
			Ours:  []string{ImplOursEager, ImplOursHybrid},
			setup: func(impl string) (func() error, error) { return forward(NewLeNet(), impl, b, 1, 28, 28) },
		})
	}
	for _, b := range []int{1, 64} {
		cs = append(cs, Case{
			Name:  fmt.Sprintf("mlp-forward-b%d", b),
			Title: fmt.Sprintf("MLP 784-256-256-10 forward, batch %d", b),
			Ours:  []string{ImplOursEager, ImplOursHybrid},
			setup: func(impl string) (func() error, error) { return forward(NewMLP(), impl, b, 784) },
		})
	}
	for _, b := range []int{16, 256} {
		cs = append(cs, Case{
			Name:  fmt.Sprintf("lenet-train-b%d", b),
			Title: fmt.Sprintf("LeNet training step (SGD), batch %d", b),
			Ours:  []string{ImplOursEager, ImplOursHybrid},
			setup: func(impl string) (func() error, error) { return trainStep(impl, b) },
		})
	}
	return cs
}

// CaseNamed returns the case called name.
func CaseNamed(name string) (Case, error) {
	var names []string
	for _, c := range Cases() {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return Case{}, fmt.Errorf("no case %q (the cases: %s)", name, strings.Join(names, ", "))
}

// NewLeNet builds the tutorial's LeNet: conv 6@5x5 relu, maxpool 2,
// conv 16@5x5 relu, maxpool 2, flatten, dense 120 relu, dense 84 relu,
// dense 10.
func NewLeNet() *nn.HybridSequential {
	relu := nn.ConvOptions{Act: "relu"}
	return nn.NewHybridSequential(
		nn.NewConv2D(6, []int{5}, relu), nn.NewMaxPool2D([]int{2}),
		nn.NewConv2D(16, []int{5}, relu), nn.NewMaxPool2D([]int{2}),
		nn.NewFlatten(),
		nn.NewDense(120, nn.DenseOptions{Act: "relu"}),
		nn.NewDense(84, nn.DenseOptions{Act: "relu"}),
		nn.NewDense(10),
	)
}

// NewMLP builds a 784-256-256-10 perceptron with relu between layers.
func NewMLP() *nn.HybridSequential {
	return nn.NewHybridSequential(
		nn.NewDense(256, nn.DenseOptions{Act: "relu"}),
		nn.NewDense(256, nn.DenseOptions{Act: "relu"}),
		nn.NewDense(10),
	)
}

func sgemm(n int) func() error {
	r := rand.New(rand.NewPCG(1, 2))
	a, b, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
	}
	return func() error {
		accel.Gemm(false, false, n, n, n, 1, a, n, b, n, 0, c, n)
		return nil
	}
}

// prepare initializes net and hybridizes it for ImplOursHybrid.
func prepare(net *nn.HybridSequential, impl string) error {
	eager.Seed(1)
	if err := net.Initialize(); err != nil {
		return err
	}
	switch impl {
	case ImplOursEager:
	case ImplOursHybrid:
		net.Hybridize()
	default:
		return fmt.Errorf("no implementation %q of ours", impl)
	}
	return nil
}

func forward(net *nn.HybridSequential, impl string, shape ...int) (func() error, error) {
	if err := prepare(net, impl); err != nil {
		return nil, err
	}
	x := eager.RandomNormal(shape...)
	return func() error {
		out, ok := net.Forward(x).(*eager.NDArray)
		if !ok || out.Shape()[0] != shape[0] {
			return fmt.Errorf("unexpected output %v", out)
		}
		return nil
	}, nil
}

func trainStep(impl string, batch int) (func() error, error) {
	net := NewLeNet()
	if err := prepare(net, impl); err != nil {
		return nil, err
	}
	trainer, err := nn.NewTrainer(net.CollectParams(), nn.NewSGD(nn.SGDOptions{LR: 0.01}))
	if err != nil {
		return nil, err
	}
	lossFn := nn.NewSoftmaxCrossEntropyLoss()
	x := eager.RandomNormal(batch, 1, 28, 28)
	labels := make([]float32, batch)
	for i := range labels {
		labels[i] = float32(i % 10)
	}
	y := eager.Array(labels, batch)
	return func() error {
		var loss *eager.NDArray
		eager.Record(func() {
			var out ops.Tensor = net.Forward(x)
			loss = lossFn.Loss(out, y).(*eager.NDArray)
		})
		if err := loss.Backward(); err != nil {
			return err
		}
		return trainer.Step(batch)
	}, nil
}

// Timing says how long to time one implementation of a case.
type Timing struct {
	Budget  time.Duration // keep running until this much time has passed
	MinRuns int           // and at least this many runs
	MaxRuns int           // but no more than this many (0: no limit)
}

// DefaultTiming and QuickTiming are the timings of a normal and a -quick
// comparison.
var (
	DefaultTiming = Timing{Budget: time.Second, MinRuns: 5, MaxRuns: 2000}
	QuickTiming   = Timing{Budget: 50 * time.Millisecond, MinRuns: 3, MaxRuns: 50}
)

// Run measures one implementation of ours of case c in this process, with
// the worker pool as it is (accel.Workers() threads): two warm-up runs (the
// hybridized net traces and compiles on its first call), then runs until
// the timing is met.
func Run(c Case, impl string, t Timing) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s %s: panic: %v", c.Name, impl, p)
		}
	}()
	fn, err := c.setup(impl)
	if err != nil {
		return Result{}, fmt.Errorf("%s %s: %w", c.Name, impl, err)
	}
	for range 2 {
		if err := fn(); err != nil {
			return Result{}, fmt.Errorf("%s %s: %w", c.Name, impl, err)
		}
	}
	var runs []float64
	start := time.Now()
	for len(runs) < t.MinRuns || (time.Since(start) < t.Budget && (t.MaxRuns == 0 || len(runs) < t.MaxRuns)) {
		t0 := time.Now()
		if err := fn(); err != nil {
			return Result{}, fmt.Errorf("%s %s: %w", c.Name, impl, err)
		}
		runs = append(runs, time.Since(t0).Seconds())
	}
	return summarize(c.Name, impl, accel.Workers(), runs), nil
}

func summarize(name, impl string, threads int, runs []float64) Result {
	sort.Float64s(runs)
	n := len(runs)
	med := runs[n/2]
	if n%2 == 0 {
		med = (runs[n/2-1] + runs[n/2]) / 2
	}
	return Result{Case: name, Impl: impl, Threads: threads, Median: med, Min: runs[0], Max: runs[n-1], Runs: n}
}
