// Package term is hybridgo's terminal REPL: a Go prompt with the
// framework imported, on top of a repl.Session.
//
// Interactively (stdin is a terminal) it reads with line editing: the
// prompt is ">>> ", and "... " while a statement is unfinished (an open
// brace or parenthesis); Tab completes names (nd.Rand<Tab> offers
// RandomNormal and RandomUniform); whole statements, multi-line ones
// included, are kept in ~/.hybridgo_history and recalled with the arrow
// keys or Ctrl-R. Ctrl-C discards what was typed, or interrupts the cell
// that runs (its variables are kept); Ctrl-D on an empty line quits.
//
// When stdin is not a terminal, statements are read without prompts and
// each is evaluated as soon as it is whole:
//
//	$ printf 'x := nd.Ones(2)\nx\n' | hybridgo
//	[1. 1.]
//	<NDArray 2 @cpu(0)>
//
// An expression's value is printed; errors and panics are printed to
// stderr and the REPL goes on. Lines that start with ':' are commands:
//
//	:help                       the commands and keys
//	:graph NAME [FILE]          draw a Symbol, or a hybridized block's last
//	                            traced graph, here or to FILE.svg/.html/.txt
//	:trace on|off               print each op as a hybridized block traces it
//	:time EXPR                  median time per run of EXPR over about a second
//	:profile EXPR               EXPR's op calls (package profiler); for
//	                            net.Forward(x), eager beside hybridized
//	:load FILE.go, :save FILE.go
//	                            evaluate a Go file; write the cells as one
//	:restart [-no-replay]       a new worker process, the cells replayed or not
//	:reset, :doc NAME, :vars, :quit
//
// # The worker process
//
// Main runs the session in a worker process (package repl/worker): the
// same binary, started as `hybridgo worker`, where Worker serves a REPL
// on the session. The front end keeps line editing, history, completion
// and Ctrl-C (RunInteractive, RunBatch), and forwards each whole input;
// REPL.Execute runs it in the worker, commands included. When a cell
// ends the worker (a stack overflow, out of memory, a panic in a
// goroutine), the front end prints one line saying why, starts a new
// worker and replays the cells ("restored 12 cells in 40 ms"), unless
// Options.NoReplay. Both RunInteractive and RunBatch take a Backend: the
// worker's client (Main), or a *REPL in this process (the tutorial
// walkthrough, tests).
//
// Package term imports repl and repl/worker; repl/worker must not import
// it.
package term
