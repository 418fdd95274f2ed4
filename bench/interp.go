package bench

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/hybridgo/hybridgo/repl"
)

// InterpCells define, in interpreted Go as a person types it in the REPL,
// the LeNet of MXNet's hybridize tutorial, two copies of it (one to run
// eagerly, one hybridized), a batch, and loops that run a forward or a
// training step n times; and a block of many small ops, where the
// interpreter's cost per op call matters more than the arithmetic. BATCH
// stands for the batch size. The cells define forwardE, forwardH, stepE,
// stepH, smallE and smallH, each a func(n int) that runs n times.
var InterpCells = []string{
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
	`func newTrainer(net *Net) *optim.Trainer {
	t, err := optim.NewTrainer(net.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.01}))
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
lossFn := loss.NewSoftmaxCrossEntropyLoss()
trainerE, trainerH := newTrainer(netE), newTrainer(netH)`,
	`func forward(net *Net, n int) {
	for i := 0; i < n; i++ {
		net.Forward(x)
	}
}`,
	`func step(net *Net, trainer *optim.Trainer, n int) {
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

// NewInterpSession starts a REPL session and runs InterpCells in it with
// the batch size batch; the cells' printed output is discarded and the
// session's errors go to stderr (nil: discarded too).
func NewInterpSession(batch int, stderr io.Writer) (*repl.Session, error) {
	if batch <= 0 {
		return nil, fmt.Errorf("the batch size is %d; it must be positive", batch)
	}
	if stderr == nil {
		stderr = io.Discard
	}
	s, err := repl.NewSession(repl.Options{Stdout: io.Discard, Stderr: stderr})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	for _, cell := range InterpCells {
		cell = strings.ReplaceAll(cell, "BATCH", fmt.Sprint(batch))
		if _, err := s.Eval(ctx, cell); err != nil {
			return nil, fmt.Errorf("%v\nin the cell:\n%s", err, cell)
		}
	}
	return s, nil
}

// interpForward returns one LeNet forward at the given batch, called from
// interpreted code: forwardE(1) or forwardH(1) of InterpCells.
func interpForward(impl string, batch int) (func() error, error) {
	name := map[string]string{ImplOursEager: "forwardE", ImplOursHybrid: "forwardH"}[impl]
	if name == "" {
		return nil, fmt.Errorf("no implementation %q of ours", impl)
	}
	s, err := NewInterpSession(batch, nil)
	if err != nil {
		return nil, err
	}
	fn, ok := s.Lookup(name)
	if !ok || fn.Kind() != reflect.Func {
		return nil, fmt.Errorf("the interpreted cells do not define %s", name)
	}
	one := []reflect.Value{reflect.ValueOf(1)}
	return func() error {
		fn.Call(one)
		return nil
	}, nil
}
