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
// Cells reach the notebook through the package "hybridgo/jupyter":
//
//	import "hybridgo/jupyter"
//	name, _ := jupyter.Input("name? ")    // input_request on stdin
//	jupyter.Display(jupyter.HTML("<b>rich</b>"))   // display_data
//	id := jupyter.NewDisplay(jupyter.HTML("<b>0%</b>"))
//	jupyter.Update(id, jupyter.HTML("<b>100%</b>")) // update_display_data
//
// The kernel owns its session (a repl.Session, with an eager.State of its
// own) and the request running; "hybridgo/jupyter" is bound to the kernel
// when its session starts (repl.Options.Packages), so its functions act
// on that kernel alone. Package display's publisher, which sends
// display.HTML, handles and progress bars to the notebook, lives in the
// session's state too: New installs one in it, so two kernels in one
// process publish each to its own notebook.
//
// `hybridgo kernel install` writes the kernelspec; Jupyter then starts
// `hybridgo kernel CONNECTION_FILE`.
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
