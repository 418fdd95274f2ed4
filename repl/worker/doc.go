// Package worker runs a REPL session in a child process, so that no cell
// can take the session down: a stack overflow, an allocation past the
// memory limit or a panic in a goroutine ends the worker process, and
// the front end (the terminal REPL, the notebook kernel) says what
// happened in one line and starts a new worker with the session's cells
// replayed.
//
// # Processes
//
// The worker is the front end's own executable run with the hidden
// argument "worker" (hybridgo worker), whose main calls Main with a Setup
// that builds the session: no second binary is installed. The front end
// starts it with Start and talks to it through the Client:
//
//	c, _ := worker.Start(worker.Options{Stdout: os.Stdout, Stderr: os.Stderr})
//	quit, err := c.Execute("x := nd.Ones(2)") // a terminal input: command or cell
//	var d *worker.Death
//	if errors.As(err, &d) {
//		fmt.Println(d, "session restarted") // "stack overflow in f, called in cell 3 (f(0)): infinite recursion?"
//		r, _ := c.Restart(true)              // replay the cells that succeeded
//		fmt.Print(r.Report())                 // "restored 12 cells in 0.8 s"
//	}
//
// The worker runs in a process group of its own, so that the terminal's
// Ctrl-C reaches the front end alone, which sends an interrupt request
// (Client.Interrupt). It ends when the front end closes its pipes.
//
// # The protocol
//
// Requests go to the worker as JSON lines on its file descriptor 3,
// messages come back as JSON lines on its descriptor 4 (Request, Message;
// the Type constants list them with their fields). The worker's stdout
// and stderr stay the cells' output streams, and the place where the Go
// runtime writes its fatal messages: the client copies them to
// Options.Stdout and Options.Stderr. Before each message the worker
// writes a sync mark to both streams, and the client acts on the message
// once it has copied the streams up to that mark, so that a cell's output
// always comes before its reply, its displays and its input requests.
//
// The front end sends one request at a time and waits for its reply;
// interrupt and input_reply requests may come while one runs.
//
//   - execute: a whole input of the terminal REPL (repl/term's
//     REPL.Execute runs in the worker: commands read the session's
//     values there). The reply says whether the REPL should quit.
//   - eval: a cell for Session.Eval; with render, the reply carries the
//     value as a MIME bundle (display.Render runs in the worker). This is
//     what a kernel sends, and what a replay sends.
//   - complete, is_complete, doc, vars, reset: the Session methods.
//   - interrupt: the running execute or eval stops, as when Eval's
//     context ends; its variables are kept.
//   - display (worker to front end): package display's output during a
//     request (display_data, and update_display_data when Update), sent
//     by a worker whose Setup installs its Server as the session's
//     display.Publisher. Options.OnDisplay receives them.
//   - input_request (worker to front end): a cell asks for a line
//     (Server.Input, a kernel's jupyter.Input); the front end answers with
//     an input_reply request (Options.OnInput).
//
// Each reply to execute, eval and reset carries the change of the
// session's Cells (CellsDelta), so that the client always holds the
// program that rebuilds the session, even after the worker is gone.
//
// # Deaths
//
// The client holds back stderr lines that may begin a fatal message of
// the Go runtime ("panic: ", "fatal error: ", "runtime: ") until a sync
// mark shows they were a cell's own output; a runtime's stack trace is
// never shown. When the worker ends, Diagnose reads that message and the
// exit status: a stack overflow (naming the session's function that
// calls itself, when the cell calls one), out of memory (with the
// allocation's size), a panic in a goroutine (with its value), another
// fatal error, a signal (SIGKILL: the system's OOM killer), or a plain
// exit. os.Exit in a cell is caught in the session and ends nothing.
//
// # Memory
//
// The worker runs under a memory limit, by default DefaultMemoryPercent
// of physical memory (hybridgo -memory changes it): its address space
// (RLIMIT_AS on Linux) is capped, so that a huge allocation ends the
// worker with "out of memory" instead of making the machine swap or
// the system kill some process; the garbage collector's soft limit is
// three quarters of it, and a goroutine's stack may grow to 256 MiB (or
// an eighth of the limit), so that a runaway recursion ends quickly as
// a stack overflow.
//
// # Restarts
//
// Client.Restart starts a new worker and, unless told not to, replays
// the old session's Cells into it with their output dropped. A replayed
// cell that fails is reported by number and the replay goes on; one that
// ends the worker again is left out and the replay starts over, at most
// three times, after which the session starts empty.
//
// Package worker imports repl and display; it must not import repl/term
// or kernel, which use it (term's setup passes its REPL as Inputs).
package worker
