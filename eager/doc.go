// Package eager runs ops at once, on NDArrays: the imperative half of
// hybridgo, and the one a block uses before it is hybridized. It owns
// NDArray, the node runner (Exec), the autograd tape and the state a
// session sees (State: modes and the random generator). It imports only
// ops (and accel through it), and must not import graph, nn or anything
// above them.
//
// # NDArray
//
// An NDArray is an n-dimensional array of one dtype (float32 by default;
// float64, int8, uint8, int32, int64 and bool too) in the context cpu(0).
// Make one from a Go slice and a shape, or with a creation function:
//
//	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
//	z := eager.Zeros(2, 3)
//	r := eager.RandomNormal(16, 1, 28, 28) // eager.Seed(n) makes runs repeat
//
// Printing follows MXNet (and numpy) — values, then a footer with the shape
// and context:
//
//	[[1. 2. 3.]
//	 [4. 5. 6.]]
//	<NDArray 2x3 @cpu(0)>
//
// Values are read with Float32s, Float64s, Scalar and At, converted with
// AsType, and copied with Copy.
//
// # Ops
//
// F is the eager op namespace (an ops.F): F.Relu(x), F.Add(a, b),
// F.Sum(x, ops.Axis(1)). The interpreter behind it infers the output dtype
// and shape with the op's rules, allocates the outputs, and runs the CPU
// kernel. Every op in the registry is available, by its F method or by name
// with F.Call. Exec is that node runner alone, outside the tape and in a
// given training mode; graph evaluation (graph.Eval) runs its nodes with it
// too, and Run is Exec plus recording.
//
// # Profiling
//
// SetProfiler installs a Profiler (package profiler has the one to use)
// that sees every op call: Exec reports each eager call, a compiled
// graph's executor each of its steps, and blocks and compiled calls open
// and close spans around them. With none installed an op call pays one
// atomic load (ActiveProfiler) and allocates nothing.
//
// # Autograd
//
// Mark the arrays to differentiate with AttachGrad, compute inside Record,
// then call Backward; gradients land in Grad():
//
//	x.AttachGrad()
//	var y *eager.NDArray
//	eager.Record(func() { y = eager.F.Sum(eager.F.Mul(x, x)).(*eager.NDArray) })
//	y.Backward()
//	fmt.Println(x.Grad()) // 2*x
//
// AttachGrad takes a request: GradWrite (the default) overwrites the
// buffer, GradAdd accumulates across backward passes, GradNull skips the
// variable. Backward releases the recorded graph unless retainGraph is set.
// Grad returns gradients without touching the buffers, and with createGraph
// records the gradient computation itself, so it can be differentiated
// again: gradient rules are written with F, so second and higher
// derivatives work for every op whose rule is made of differentiable ops.
//
// A computation that is no single op can be one node of the tape too: a
// hybridized block's compiled graph runs as a whole and records itself
// with RecordCall (when Taped says that its inputs need a gradient) as a
// Call, which knows its own backward. Backward hands it the gradients of
// its outputs, and Release tells it when the tape lets it go, so that
// what it kept for its backward can serve the next call. The gradient of
// a Call cannot be recorded (createGraph) to differentiate again.
//
// SetGradHook gives a variable a function that Backward calls as soon as
// the variable's gradient is complete, while the backward pass goes on
// to the variables nearer the inputs; a Call that is a StreamingCall
// hands over each input's gradient as it computes it, so hooks fire
// inside a hybridized block too. A data-parallel trainer (nn/optim's
// Overlap) starts sending gradients from there.
//
// Record also turns training mode on (Dropout drops, BatchNorm uses batch
// statistics); Pause turns both off; TrainMode and PredictMode set only the
// training flag.
//
// # State
//
// What running code reads besides its arguments lives in one value, a
// State: the recording and training flags, the random generator behind
// the random ops (Seed, LockRand), and a slot per upper package — nn
// keeps its block-name counters and trace stack there, graph the tracer
// that names graph.F's nodes. The package-level functions (IsRecording,
// Record, Seed, …) act on the current state. A program has one,
// DefaultState, current unless something makes another current. A REPL
// session makes its own with NewState (fresh as a new process) and makes
// it current while its cells run:
//
//	st := eager.NewState()
//	restore := eager.UseState(st)
//	eager.Seed(1) // st's generator; the default state's is untouched
//	restore()
//
// The current state is one per process, not per goroutine, so code that
// switches states must not run beside other code that reads them; the
// REPL runs the cells of all its sessions one at a time. Reading the
// current state is one atomic load: IsRecording costs what it did when
// the flags were package variables.
package eager
