// Package bench times hybridgo side by side with its peers, PyTorch (eager
// and jit), NumPy and ONNX Runtime, on the same workloads: SGEMM, the
// LeNet of MXNet's hybridize tutorial (forward, also driven from
// interpreted Go, a training step, the peak memory of training, and a
// Fashion-MNIST epoch), a small MLP, an LSTM layer's forward and
// backward pass (beside torch.nn.LSTM), and real-size networks of the model
// zoo (ResNet-18 v1 and MobileNet v2 forward at 224×224, a ResNet-18
// training step). The Go side of every case lives here; the PyTorch and
// NumPy side is in bench/torch, the ONNX Runtime side in bench/ort (a
// Node script timing the model bench/torch exports). It may import any
// library package; only the command imports it.
package bench

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/hybridgo/hybridgo/accel"
	"github.com/hybridgo/hybridgo/data"
	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/train"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/nn/loss"
	"github.com/hybridgo/hybridgo/nn/optim"
	"github.com/hybridgo/hybridgo/nn/rnn"
	"github.com/hybridgo/hybridgo/nn/vision"
	"github.com/hybridgo/hybridgo/ops"
)

// Implementations, as they appear in a Result's Impl.
const (
	ImplOursEager  = "ours-eager"
	ImplOursHybrid = "ours-hybrid"
	ImplTorchEager = "torch-eager"
	ImplTorchJIT   = "torch-jit"
	ImplNumPy      = "numpy"
	ImplORT        = "onnxruntime"
)

// Case is one workload.
type Case struct {
	Name  string
	Title string // what the table says about it
	// Ours lists the implementations of ours that the case has.
	Ours []string
	// Timing, when not nil, replaces the comparison's timing (normal or
	// -quick) for this case: fashion-epoch runs its epoch once.
	Timing *Timing
	// Memory says that the case reports the process's peak resident set
	// size (Result.PeakRSS), so each implementation runs in a process of
	// its own.
	Memory bool
	// ONNXInput, when not nil, is the shape of the input ONNX Runtime
	// is fed: the case has an ONNX Runtime column, timing the model that
	// bench/torch exports for it.
	ONNXInput []int
	// setup builds the workload for one implementation.
	setup func(impl string) (work, error)
}

// work is one implementation of a case, ready to time: run is what is
// timed; warm, when not nil, warms up instead of two calls of run.
type work struct {
	run  func() error
	warm func() error
}

// just wraps a setup that returns only the timed function.
func just(run func() error, err error) (work, error) { return work{run: run}, err }

// Cases returns every workload, in the order of the table.
func Cases() []Case {
	var cs []Case
	for _, n := range []int{128, 256, 512, 1024, 2048} {
		cs = append(cs, Case{
			Name:  fmt.Sprintf("sgemm-%d", n),
			Title: fmt.Sprintf("SGEMM %d×%d×%d", n, n, n),
			Ours:  []string{ImplOursEager},
			setup: func(string) (work, error) { return work{run: sgemm(n)}, nil },
		})
	}
	for _, b := range []int{1, 16, 256} {
		cs = append(cs, Case{
			Name:  fmt.Sprintf("lenet-forward-b%d", b),
			Title: fmt.Sprintf("LeNet forward, batch %d", b),
			Ours:  []string{ImplOursEager, ImplOursHybrid},
			setup: func(impl string) (work, error) { return just(forward(train.NewLeNet(), impl, b, 1, 28, 28)) },
		})
	}
	for _, b := range []int{1, 64} {
		cs = append(cs, Case{
			Name:  fmt.Sprintf("mlp-forward-b%d", b),
			Title: fmt.Sprintf("MLP 784-256-256-10 forward, batch %d", b),
			Ours:  []string{ImplOursEager, ImplOursHybrid},
			setup: func(impl string) (work, error) { return just(forward(NewMLP(), impl, b, 784)) },
		})
	}
	for _, b := range []int{16, 256} {
		cs = append(cs, Case{
			Name:  fmt.Sprintf("lenet-train-b%d", b),
			Title: fmt.Sprintf("LeNet training step (SGD), batch %d", b),
			Ours:  []string{ImplOursEager, ImplOursHybrid},
			setup: func(impl string) (work, error) { return just(trainStep(train.NewLeNet(), impl, b, 1, 28, 28)) },
		})
	}
	cs = append(cs,
		Case{
			Name:  "lenet-forward-b16-interp",
			Title: "LeNet forward, batch 16, driven from interpreted Go",
			Ours:  []string{ImplOursEager, ImplOursHybrid},
			setup: func(impl string) (work, error) { return just(interpForward(impl, 16)) },
		},
		Case{
			Name:   "lenet-train-b256-memory",
			Title:  fmt.Sprintf("LeNet training, batch 256: peak RSS after %d steps", memorySteps),
			Ours:   []string{ImplOursHybrid},
			Timing: &Timing{MinRuns: memorySteps, MaxRuns: memorySteps},
			Memory: true,
			setup:  func(impl string) (work, error) { return just(trainStep(train.NewLeNet(), impl, 256, 1, 28, 28)) },
		},
		Case{
			Name: "lstm-train-t35-b32",
			Title: fmt.Sprintf("LSTM layer (%d layers, %d hidden, input %d) forward + backward, sequence %d, batch %d",
				lstmLayers, lstmHidden, lstmHidden, lstmSteps, lstmBatch),
			Ours:  []string{ImplOursEager, ImplOursHybrid},
			setup: func(impl string) (work, error) { return just(lstmStep(impl)) },
		},
		Case{
			Name:   "fashion-epoch",
			Title:  fmt.Sprintf("Fashion-MNIST training epoch (60,000 images, batch %d)", epochBatch),
			Ours:   []string{ImplOursEager, ImplOursHybrid},
			Timing: &Timing{MinRuns: 1, MaxRuns: 1},
			setup:  fashionEpoch,
		},
	)
	return append(cs, realCases()...)
}

// realBudget is how long each implementation runs a case of realCases.
const realBudget = time.Second

// realTrainSize is the image size of the ResNet-18 training step: 112×112,
// as 224×224 made the comparison's run too long on two cores.
const realTrainSize = 112

// realCases are the networks of the model zoo at ImageNet size: forward
// passes of the hybridized net beside PyTorch eager, PyTorch jit and ONNX
// Runtime, and a training step. Each implementation runs for realBudget
// (a forward pass at batch 1 takes milliseconds, and a median of many
// runs is not moved by a moment's load on the machine), and at least
// the case's few runs where one takes long.
func realCases() []Case {
	fwd := func(name, title, model string, batch, runs int) Case {
		shape := []int{batch, 3, 224, 224}
		return Case{
			Name: name, Title: title,
			Ours:      []string{ImplOursHybrid},
			Timing:    &Timing{Budget: realBudget, MinRuns: runs, MaxRuns: DefaultTiming.MaxRuns},
			ONNXInput: shape,
			setup: func(impl string) (work, error) {
				net, err := vision.GetModel(model)
				if err != nil {
					return work{}, err
				}
				return just(forward(net, impl, shape...))
			},
		}
	}
	return []Case{
		fwd("resnet18-forward-b1", "ResNet-18 v1 forward, 224×224, batch 1", "resnet18_v1", 1, 10),
		fwd("resnet18-forward-b16", "ResNet-18 v1 forward, 224×224, batch 16", "resnet18_v1", 16, 5),
		fwd("mobilenetv2-forward-b1", "MobileNet v2 (1.0) forward, 224×224, batch 1", "mobilenetv2_1.0", 1, 10),
		{
			Name:   "resnet18-train-b16",
			Title:  fmt.Sprintf("ResNet-18 v1 training step (SGD), %d×%d, batch 16", realTrainSize, realTrainSize),
			Ours:   []string{ImplOursHybrid},
			Timing: &Timing{Budget: 2 * realBudget, MinRuns: 5, MaxRuns: DefaultTiming.MaxRuns},
			setup: func(impl string) (work, error) {
				net, err := vision.GetModel("resnet18_v1")
				if err != nil {
					return work{}, err
				}
				return just(trainStep(net, impl, 16, 3, realTrainSize, realTrainSize))
			},
		},
		{
			Name:   "resnet18-train-b16-memory",
			Title:  fmt.Sprintf("ResNet-18 v1 training, %d×%d, batch 16: peak RSS after %d steps", realTrainSize, realTrainSize, realMemorySteps),
			Ours:   []string{ImplOursHybrid},
			Timing: &Timing{MinRuns: realMemorySteps, MaxRuns: realMemorySteps},
			Memory: true,
			setup: func(impl string) (work, error) {
				net, err := vision.GetModel("resnet18_v1")
				if err != nil {
					return work{}, err
				}
				return just(trainStep(net, impl, 16, 3, realTrainSize, realTrainSize))
			},
		},
	}
}

// realMemorySteps is the number of timed training steps of the ResNet-18
// memory case (after the two warm-up steps).
const realMemorySteps = 5

// memorySteps is the number of timed training steps of the memory case
// (after the two warm-up steps).
const memorySteps = 20

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

// model is what a case needs of a network: a train.NewLeNet, NewMLP or a
// model of the zoo.
type model interface {
	Initialize(opts ...nn.InitializeOptions) error
	Hybridize(opts ...nn.HybridizeOptions)
	Forward(x ops.Tensor) ops.Tensor
	CollectParams(pattern ...string) *nn.ParameterDict
}

// prepare initializes net and hybridizes it for ImplOursHybrid.
func prepare(net model, impl string) error {
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

func forward(net model, impl string, shape ...int) (func() error, error) {
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

// trainer returns one SGD training step (lr 0.01, softmax cross-entropy)
// of net on a batch x with labels y.
func trainer(net model, impl string) (func(x, y *eager.NDArray) error, error) {
	if err := prepare(net, impl); err != nil {
		return nil, err
	}
	tr, err := optim.NewTrainer(net.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.01}))
	if err != nil {
		return nil, err
	}
	lossFn := loss.NewSoftmaxCrossEntropyLoss()
	return func(x, y *eager.NDArray) error {
		var l *eager.NDArray
		eager.Record(func() {
			var out ops.Tensor = net.Forward(x)
			l = lossFn.Loss(out, y).(*eager.NDArray)
		})
		if err := l.Backward(); err != nil {
			return err
		}
		return tr.Step(x.Shape()[0])
	}, nil
}

// trainStep returns a training step of net on a random batch of the given
// shape, labels cycling through 0–9.
func trainStep(net model, impl string, shape ...int) (func() error, error) {
	step, err := trainer(net, impl)
	if err != nil {
		return nil, err
	}
	x := eager.RandomNormal(shape...)
	batch := shape[0]
	labels := make([]float32, batch)
	for i := range labels {
		labels[i] = float32(i % 10)
	}
	y := eager.Array(labels, batch)
	return func() error { return step(x, y) }, nil
}

// The sizes of the LSTM case (a word-level language model's recurrent
// part): its input has as many features as its hidden state.
const (
	lstmLayers = 2
	lstmHidden = 256
	lstmSteps  = 35
	lstmBatch  = 32
)

// lstmStep returns a forward and backward pass of a fused LSTM layer
// (gradients of the parameters and the input, from an output gradient
// of ones), as bench/torch times torch.nn.LSTM.
func lstmStep(impl string) (func() error, error) {
	net := rnn.NewLSTM(lstmHidden, rnn.Options{NumLayers: lstmLayers, InputSize: lstmHidden})
	if err := prepare(net, impl); err != nil {
		return nil, err
	}
	x := eager.RandomNormal(lstmSteps, lstmBatch, lstmHidden)
	return func() error {
		var out *eager.NDArray
		eager.Record(func() { out = net.Forward(x).(*eager.NDArray) })
		return out.Backward()
	}, nil
}

// epochBatch and epochWarmSteps are the batch size of fashion-epoch and
// the number of training steps it takes before the timed epoch.
const (
	epochBatch     = 64
	epochWarmSteps = 3
)

// fashionEpoch loads the Fashion-MNIST training set (not timed) and
// returns one training epoch over it: a DataLoader shuffling with a fixed
// seed, batches of 64 (the last one smaller), an SGD step per batch. The
// warm-up is three steps, so that the hybridized net has traced and
// compiled before the epoch.
func fashionEpoch(impl string) (work, error) {
	ds, err := data.FashionMNIST("", true)
	if err != nil {
		return work{}, err
	}
	loader, err := data.NewDataLoader(ds, data.LoaderOptions{BatchSize: epochBatch, Shuffle: true, Seed: 1})
	if err != nil {
		return work{}, err
	}
	step, err := trainer(train.NewLeNet(), impl)
	if err != nil {
		return work{}, err
	}
	steps := func(limit int) error {
		n := 0
		for batch, err := range loader.Epoch() {
			if err != nil {
				return err
			}
			if limit > 0 && n == limit {
				break
			}
			if err := step(batch[0], batch[1]); err != nil {
				return err
			}
			n++
		}
		if limit == 0 && n != loader.NumBatches() {
			return fmt.Errorf("the epoch had %d batches, not %d", n, loader.NumBatches())
		}
		return nil
	}
	return work{
		run:  func() error { return steps(0) },
		warm: func() error { return steps(epochWarmSteps) },
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
// hybridized net traces and compiles on its first call; a case may warm up
// differently), then runs until the timing is met. c.Timing, when set,
// replaces t. A Memory case also reports the process's peak RSS.
func Run(c Case, impl string, t Timing) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s %s: panic: %v", c.Name, impl, p)
		}
	}()
	if c.Timing != nil {
		t = *c.Timing
	}
	w, err := c.setup(impl)
	if err != nil {
		return Result{}, fmt.Errorf("%s %s: %w", c.Name, impl, err)
	}
	runs, err := Time(w.run, w.warm, t)
	if err != nil {
		return Result{}, fmt.Errorf("%s %s: %w", c.Name, impl, err)
	}
	res = summarize(c.Name, impl, accel.Workers(), runs)
	if c.Memory {
		if res.PeakRSS, err = peakRSS(); err != nil {
			return Result{}, fmt.Errorf("%s %s: %w", c.Name, impl, err)
		}
	}
	return res, nil
}

// Time warms fn up (with warm, or with two calls of fn when warm is nil:
// a hybridized net traces and compiles on its first call), then calls it
// for about t.Budget, at least t.MinRuns times and at most t.MaxRuns (0:
// no bound), and returns each call's time in seconds, in order.
func Time(fn, warm func() error, t Timing) ([]float64, error) {
	if warm == nil {
		warm = func() error {
			if err := fn(); err != nil {
				return err
			}
			return fn()
		}
	}
	if err := warm(); err != nil {
		return nil, err
	}
	var runs []float64
	start := time.Now()
	for len(runs) < t.MinRuns || (time.Since(start) < t.Budget && (t.MaxRuns == 0 || len(runs) < t.MaxRuns)) {
		t0 := time.Now()
		if err := fn(); err != nil {
			return nil, err
		}
		runs = append(runs, time.Since(t0).Seconds())
	}
	return runs, nil
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
