// Package kernel is hybridgo's Jupyter kernel: it serves a repl.Session
// over the Jupyter messaging protocol 5.3 (ZeroMQ, with
// github.com/go-zeromq/zmq4).
//
// The five sockets of the connection file are bound: shell, control and
// stdin (ROUTER), iopub (PUB) and hb (REP, which echoes). Each socket's
// writes go through one goroutine. Messages are signed with HMAC-SHA256
// of the connection file's key; a message whose signature does not
// verify is dropped and the kernel carries on.
//
// Shell requests are served one at a time: kernel_info, execute,
// complete, inspect, is_complete, history and comm_info, each bracketed
// by status busy and idle on IOPub. A cell's output is sent as stream
// messages while it runs, its final value as execute_result (a MIME
// bundle from package display's Render, text/plain at least), an error with its name,
// message and lines. A failed cell aborts the execute requests queued
// behind it unless stop_on_error is false. Control is served while a
// cell runs: interrupt_request and SIGINT stop the cell (the session
// keeps its variables), shutdown_request replies and exits.
//
// # The worker process
//
// The kernel process holds the sockets, the heartbeat, the message loop
// and the protocol; the session runs in a worker process (package
// repl/worker), the kernel's executable started with WorkerArgs
// (`hybridgo kernel worker`, whose main is Worker). Cells, completion,
// inspection and is_complete are requests to the worker's Client. What a
// cell writes to its stdout and stderr (the session's writers and the
// worker's file descriptors 1 and 2) comes back as stream messages of
// the cell's request, its displays as display_data and
// update_display_data, jupyter.Input as an input_request on stdin whose
// answer goes back to the worker, and its value as the MIME bundle that
// display.Render made in the worker (execute_result). An interrupt
// (interrupt_request, or SIGINT: the kernelspec's interrupt_mode is
// "signal") stops the worker's cell, which ends with the Interrupted
// error.
//
// No cell can end the kernel: when the worker dies during a cell (a
// stack overflow, an allocation past the memory limit, a panic in a
// goroutine of compiled code), the cell's error names the cause
// (StackOverflow, OutOfMemory, GoroutinePanic, FatalError, WorkerKilled,
// WorkerExited) and says what happened in one line, the kernel starts a
// new worker and replays the cells that succeeded, and the traceback
// ends with what was restored ("restored 12 cells in 0.8 s"). A worker
// that died between cells is replaced before the next cell, which says
// so on its stderr. The execution count goes on. The kernel's command
// line sets the worker's memory limit (-memory 8GiB, 50% or off; by
// default worker.DefaultMemoryPercent of physical memory) and turns
// replay off (-no-replay); `hybridgo kernel install -memory 8GiB
// -no-replay` writes them into the kernelspec's argv.
//
// Cells reach the notebook through the package "hybridgo/jupyter":
//
//	import "hybridgo/jupyter"
//	name, _ := jupyter.Input("name? ")    // input_request on stdin
//	jupyter.Display(jupyter.HTML("<b>rich</b>"))   // display_data
//	id := jupyter.NewDisplay(jupyter.HTML("<b>0%</b>"))
//	jupyter.Update(id, jupyter.HTML("<b>100%</b>")) // update_display_data
//
// The kernel owns its worker and the request running; in the worker,
// "hybridgo/jupyter" is bound to the worker's server when the session
// starts (repl.Options.Packages), and the server is package display's
// publisher in the session's state, so display.HTML, handles and
// progress bars reach the notebook as jupyter.Display does.
//
// `hybridgo kernel install` writes the kernelspec; Jupyter then starts
// `hybridgo kernel CONNECTION_FILE`.
//
// Package kernel imports repl, repl/worker and display; it must not
// import repl/term.
//
// # Tests against real front ends
//
// The conformance test drives the kernel with jupyter_client, feature by
// feature; TestNotebooksRun executes every notebook with nbconvert; and
// TestNotebookWebUI works a notebook as a person would, in Debian's
// classic Notebook server (jupyter-notebook) from headless Chromium
// driven by Selenium (testdata/webui.py): it clears the outputs, runs all
// cells from the Cell menu, checks that the page shows the NDArray table,
// the graph's SVG, a progress bar updated in place and an error's
// message, then interrupts an endless cell from the toolbar and checks
// that the same kernel answers with its variables. Each step is saved as
// a full-page screenshot, in the directory the test logs
// ($HYBRIDGO_ARTIFACTS/kernel-webui when that is set):
//
//	HYBRIDGO_ARTIFACTS=/tmp/shots go test -count=1 -run NotebookWebUI -v ./kernel/
//
// The browser is kept offline, so an interactive chart shows its static
// SVG, as for a notebook without internet. These tests need Debian
// packages that `make deps` installs, and say so when they are missing.
package kernel
