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
//	:load FILE.go, :save FILE.go
//	                            evaluate a Go file; write the cells as one
//	:reset, :doc NAME, :vars, :quit
package term
