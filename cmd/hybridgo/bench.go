package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hybridgo/hybridgo/repl"
)

// benchCells define, in interpreted Go as a person types it in the REPL,
// the LeNet of MXNet's hybridize tutorial, two copies of it (one to run
// eagerly, one hybridized), a batch, and loops that run a forward or a
// training step n times; and a block of many small ops, where the
// interpreter's cost per op call matters more than the arithmetic.
var benchCells = []string{
	`type Net struct {
	nn.HybridBlock
	Conv1, Conv2 *nn.Conv2D
	Pool1, Pool2 *nn.MaxPool2D
	Fc1, Fc2     *nn.Dense
	Fc3Weight    *nn.Parameter
}`,
	`func (n *Net) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	x = n.Pool1.Forward(F.Relu(n.Conv1.Forward(x)))
	x = n.Pool2.Forward(F.Relu(n.Conv2.Forward(x)))
	x = F.Reshape(x, 0, -1)
	x = F.Relu(n.Fc1.Forward(x))
	x = F.Relu(n.Fc2.Forward(x))
	return F.Dot(x, nn.Param(F, n.Fc3Weight), ops.TransposeB())
}`,
	`func NewNet() *Net {
	n := &Net{
		Conv1: nn.NewConv2D(6, []int{5}), Pool1: nn.NewMaxPool2D([]int{2}),
		Conv2: nn.NewConv2D(16, []int{5}), Pool2: nn.NewMaxPool2D([]int{2}),
		Fc1: nn.NewDense(120), Fc2: nn.NewDense(84),
		Fc3Weight: nn.NewParameter("fc3_weight", ops.Shape{10, 84}),
	}
	n.Bind(n, "net")
	return n
}`,
	`func mustInit(net *Net) {
	if err := net.Initialize(); err != nil {
		panic(err)
	}
}`,
	`func newTrainer(net *Net) *nn.Trainer {
	t, err := nn.NewTrainer(net.CollectParams(), nn.NewSGD(nn.SGDOptions{LR: 0.01}))
	if err != nil {
		panic(err)
	}
	return t
}`,
	`eager.Seed(1)
netE, netH := NewNet(), NewNet()
mustInit(netE)
mustInit(netH)
netH.Hybridize()
x := nd.RandomNormal(BATCH, 1, 28, 28)
y := nd.Zeros(BATCH)
lossFn := nn.NewSoftmaxCrossEntropyLoss()
trainerE, trainerH := newTrainer(netE), newTrainer(netH)`,
	`func forward(net *Net, n int) {
	for i := 0; i < n; i++ {
		net.Forward(x)
	}
}`,
	`func step(net *Net, trainer *nn.Trainer, n int) {
	for i := 0; i < n; i++ {
		var loss *eager.NDArray
		eager.Record(func() {
			loss = lossFn.Loss(net.Forward(x), y).(*eager.NDArray)
		})
		if err := loss.Backward(); err != nil {
			panic(err)
		}
		if err := trainer.Step(BATCH); err != nil {
			panic(err)
		}
	}
}`,
	`type Ops struct {
	nn.HybridBlock
	Fc *nn.Dense
}`,
	`func (o *Ops) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	x = o.Fc.Forward(x)
	for i := 0; i < 20; i++ {
		x = F.Tanh(F.MulScalar(x, 0.9))
	}
	return x
}`,
	`func newOps() *Ops {
	o := &Ops{Fc: nn.NewDense(32)}
	o.Bind(o, "ops")
	if err := o.Initialize(); err != nil {
		panic(err)
	}
	return o
}`,
	`opsE, opsH := newOps(), newOps()
opsH.Hybridize()
small := nd.RandomNormal(BATCH, 32)
smallE := func(n int) {
	for i := 0; i < n; i++ {
		opsE.Forward(small)
	}
}
smallH := func(n int) {
	for i := 0; i < n; i++ {
		opsH.Forward(small)
	}
}`,
	`forwardE := func(n int) { forward(netE, n) }
forwardH := func(n int) { forward(netH, n) }
stepE := func(n int) { step(netE, trainerE, n) }
stepH := func(n int) { step(netH, trainerH, n) }`,
}

// runBench times the tutorial's LeNet driven from a REPL session.
func runBench(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "compare":
			return runBenchCompare(args[1:], stdout, stderr)
		case "case":
			return runBenchCase(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("hybridgo bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	batch := fs.Int("batch", 16, "batch size")
	budget := fs.Duration("time", 2*time.Second, "how long to time each case")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *batch <= 0 {
		fmt.Fprintln(stderr, "hybridgo bench: -batch must be positive")
		return 2
	}
	s, err := repl.NewSession(repl.Options{Stdout: io.Discard, Stderr: stderr})
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo bench:", err)
		return 1
	}
	ctx := context.Background()
	for _, cell := range benchCells {
		cell = strings.ReplaceAll(cell, "BATCH", fmt.Sprint(*batch))
		if _, err := s.Eval(ctx, cell); err != nil {
			fmt.Fprintf(stderr, "hybridgo bench: %v\nin the cell:\n%s\n", err, cell)
			return 1
		}
	}
	fmt.Fprintf(stdout, "The LeNet of MXNet's hybridize tutorial, defined and driven from interpreted Go (a REPL session), batch %d.\n", *batch)
	fmt.Fprintf(stdout, "Each time is the median over about %v of runs.\n\n", *budget)
	tw := tabwriter.NewWriter(stdout, 0, 4, 3, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\teager\thybridized\tspeed-up\t")
	for _, c := range []struct{ name, eager, hybrid string }{
		{"forward", "forwardE", "forwardH"},
		{"training step (Record + Backward + SGD)", "stepE", "stepH"},
		{"41 small ops (Dense, 20 x MulScalar+Tanh) on 16x32", "smallE", "smallH"},
	} {
		var times [2]time.Duration
		for i, fn := range []string{c.eager, c.hybrid} {
			v, ok := s.Lookup(fn)
			if !ok || v.Kind() != reflect.Func {
				fmt.Fprintf(stderr, "hybridgo bench: %s is not defined\n", fn)
				return 1
			}
			d, err := medianRun(v, *budget)
			if err != nil {
				fmt.Fprintf(stderr, "hybridgo bench: %s: %v\n", fn, err)
				return 1
			}
			times[i] = d
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1fx\t\n", c.name, ms(times[0]), ms(times[1]), float64(times[0])/float64(times[1]))
	}
	tw.Flush()
	return 0
}

// medianRun calls fn(1) (one run, in the interpreter) twice to warm up
// (the hybridized net traces and compiles on its first call), then
// repeatedly for about budget, and returns the median time of a run.
func medianRun(fn reflect.Value, budget time.Duration) (d time.Duration, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	one := []reflect.Value{reflect.ValueOf(1)}
	fn.Call(one)
	fn.Call(one)
	var runs []time.Duration
	start := time.Now()
	for len(runs) < 5 || time.Since(start) < budget {
		t := time.Now()
		fn.Call(one)
		runs = append(runs, time.Since(t))
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i] < runs[j] })
	return runs[len(runs)/2], nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }
