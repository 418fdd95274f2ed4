// Package walk is `hybridgo tutorial`: an interactive walkthrough of a
// tutorial in the terminal. It sits on repl/term and tutorial, and nothing
// but the command imports it.
//
//	$ hybridgo tutorial             # lists the tutorials
//	$ hybridgo tutorial hybridize   # walks through tutorials/hybridize.md
//
// A walkthrough reads a tutorial (package tutorial's format) and goes
// through it in one REPL session. It prints the prose of each section,
// then shows the next cell and waits at a prompt such as "[3/15] ▶ ":
//
//	Enter        runs the cell, then checks what it printed against the
//	             tutorial's output block: "✓ as the tutorial shows", or
//	             "✗ the tutorial shows:" and the expected lines (… in
//	             them stands for anything), after which Enter goes on
//	:edit        puts the cell's lines at the prompt one by one, ready to
//	             change (Enter keeps a line); the edited cell runs and is
//	             checked the same way
//	:skip        goes on without running the cell
//	:again       runs the tutorial's cell again
//	:quit        stops (so does Ctrl-D)
//	anything     else is Go, or a REPL command such as :graph net, run in
//	             the same session, so the reader can look around
//
// After the last cell a summary says how many cells printed what the
// tutorial shows, and the session goes on as a plain REPL (at a
// terminal).
//
// Main runs the walkthrough in a fresh temporary directory, so files a
// tutorial writes (Export) do not land in the reader's; the directory is
// removed when the walkthrough (and the REPL after it) ends. When
// standard input is not a terminal, lines are read as they come, without
// prompts or line editing, with the same meanings, and the walkthrough
// ends after the summary. This runs every cell and prints the checks:
//
//	yes "" | hybridgo tutorial hybridize
package walk
