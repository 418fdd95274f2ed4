// Package repl is hybridgo's interactive Go: a Session evaluates cells of
// Go code with yaegi, with the project's packages preloaded, for the
// terminal REPL, the notebook kernel and `hybridgo run FILE.go`.
//
//	s, _ := repl.NewSession(repl.Options{Stdout: os.Stdout, Stderr: os.Stderr})
//	s.Eval(ctx, "x := nd.RandomNormal(2, 3)")
//	res, _ := s.Eval(ctx, "nd.Relu(x)") // res.Text: the values and "<NDArray 2x3 @cpu(0)>"
//
// # What a session has
//
// ops, eager, graph, mxnet (format/mxnet, MXNet's model files), nn,
// loss, metric, optim, data, display, viz, nd and sym are imported under
// their names (PreImports lists them), with fmt, math and strings; any
// other standard package is imported the first time a cell names it
// (strconv.Itoa works without an import), and everything is importable
// by path. Importing again is harmless. A cell may still declare a
// variable named like one of them (loss := lossFn.Loss(out, y)); the
// variable then hides the package, as a local variable does in Go.
//
// nd and sym are ready-made namespaces, MXNet's mx.nd and mx.sym. They
// are compiled packages (repl/nd, repl/sym) whose functions wrap every op
// of ops.F, generated from it (go generate ./repl): nd.Relu(x) runs at
// once and returns an *eager.NDArray, sym.Relu(s) adds a graph node and
// returns a *graph.Symbol with its inferred shape. nd adds the creation
// functions with shapes as trailing ints (nd.RandomNormal(16, 1, 28, 28),
// nd.Zeros, nd.Array); sym adds Var and Group. F is eager.F, and Go(fn)
// runs fn in a goroutine as a go statement does.
//
// # Cells
//
// A cell may mix imports, declarations and statements. It is split at its
// top-level semicolons (go/scanner) and parsed (go/parser); imports are
// evaluated first, then type and function declarations together, then
// the statements in order (var and const declarations run with them, as
// the interpreter mishandles `var y = x` as a declaration). Names declared
// at the top level, with := too, live on in later cells. The value of a
// final expression statement is displayed: NDArrays MXNet-style, Symbols
// with their shape, errors by message, anything else with %v. Calls with
// no result, fmt's Print functions, and calls returning a nil error
// display nothing; a call with several results displays each.
//
// # State
//
// Each session has an eager.State of its own, fresh as a new process:
// recording and training off, the random generator seeded with 0, block
// names from net0 and graph.F's names from relu0. A cell runs with its
// session's state current, and cells of all sessions in the process run
// one at a time, so two sessions never see each other's modes, random
// streams, names or variables. A goroutine that a cell leaves running
// after it ends sees whichever state is current then. Reset starts a
// fresh state with the fresh interpreter.
//
// # Errors
//
// Errors carry the line and column within the cell (*CompileError). A
// panic comes back as *PanicError with the interpreted frames it crossed,
// and the session carries on. A cancelled context stops a running cell
// (ErrInterrupted); the variables stay. What no session can survive (a
// stack overflow, running out of memory, a panic in a goroutine of
// compiled code) ends the process: the terminal REPL therefore runs its
// session in a worker process (package repl/worker), which its front end
// restarts, replaying Cells.
//
// A cell is compiled whole, as Go compiles a file: a compile error
// anywhere in it runs none of it, and leaves the session exactly as it
// was. The interpreter does not do that by itself: it declares a cell's
// names while it analyses the cell, and an error stops it before it
// makes room for the new variables, so the names stayed half declared
// (the next statement panicked with "index out of range [5] with length
// 5", a later use of the name read garbage instead of "undefined: bad").
// The session takes a snapshot of the interpreter's package scope before
// each cell and, when the cell fails to compile, removes the names it
// added, puts back the ones it replaced and cuts the method lists of the
// session's types back (rollback.go). That costs a copy of the symbol
// table per cell, where rebuilding the interpreter would run every
// earlier cell again. A cell that panics is not rolled back: what it did
// before the panic stays. In the terminal each statement of a pasted
// block is a cell of its own, so each later line that uses a failed name
// reports "undefined: bad".
//
// Messages are worded as the Go compiler words them. The interpreter's
// own wordings are mapped (messages.go): "undefined: x" rather than a
// "constant definition loop", "too many arguments in call to f",
// "p.Nope undefined (type P has no field or method Nope)", "invalid
// operation: x + f (mismatched types int and float64)", "cannot use f
// (variable of type float64) as int value in assignment" and more.
// What gc rejects and the interpreter accepts is checked before a cell
// runs (gocheck.go): a missing return, calling a variable that is not a
// function, an assignment whose variables and results do not match in
// number. Unused variables and imports are accepted, as a cell's
// top-level names belong to the session and later cells use them.
//
// A Go runtime error raised by the interpreter's own code (not by the
// cell's code, nor by compiled code it calls) is an *InternalError:
// "internal error in hybridgo's interpreter (please report it, with the
// cell)", then the cell. The user's panics read as panics.
//
// A goroutine that panics ends a Go program, and a cell's goroutines are
// the process's: so each go statement of a cell (in its functions and
// closures too) is rewritten to start its goroutine through the session
// (gostmt.go), which recovers a panic and reports "panic in a goroutine
// started by cell N: boom" on the session's stderr, N counting the
// cells the session evaluated. The function and its arguments are still
// evaluated when the go statement runs. os.Exit in a cell is a panic.
//
// # The interpreter's gaps, and how they are closed
//
// yaegi follows Go 1.22. min and max are provided as generic functions
// (calls on constants alone get their first argument converted, as the
// interpreter cannot infer from untyped constants) and clear as a
// function over maps and slices. Ranging over an integer or a function is
// refused with an error naming the line, before anything runs.
// The interpreter loses variables declared from one multi-valued
// expression (n, err := strconv.Atoi(s); v, ok := m[k]) inside a block
// of a top-level statement, so such a statement runs as func() { … }();
// it sees and sets the session's variables as before.
//
// yaegi keeps the first declaration of a type or method and ignores
// later ones. When a cell declares a type or method again, differently,
// the session replays: it starts a fresh interpreter and runs the earlier
// cells again, silently, each declaration in its latest version at the
// place it was first declared, then the new cell. Variables are computed
// again with the new definitions (random values are drawn anew unless
// seeded). If a replayed cell or the new one fails, the redefinition is
// refused with that error and the session is unchanged. Declaring the
// same thing identically needs no replay; functions are redefined in
// place. A grouped declaration (type ( A ...; B ... )) is replaced only
// when all its names are declared again.
package repl
