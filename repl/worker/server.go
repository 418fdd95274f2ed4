package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/hybridgo/hybridgo/display"
	"github.com/hybridgo/hybridgo/repl"
)

// Inputs runs the whole inputs of an execute request: the terminal's
// REPL (repl/term's *REPL), whose commands read the session's values.
type Inputs interface {
	Execute(input string) (quit bool)
	Interrupt() bool
}

// Setup builds the worker's session. Its output goes to os.Stdout and
// os.Stderr, which the front end reads. in may be nil when execute
// requests are not used (a kernel sends eval). srv is the worker's server:
// a kernel binds srv.Input for cells and installs srv as the session's
// display.Publisher (Session.InState).
type Setup func(srv *Server) (s *repl.Session, in Inputs, err error)

// Main is the worker process (hybridgo's hidden "worker" command): it
// takes the memory limit the front end passed, builds the session with
// setup and answers requests on file descriptors 3 and 4 until the front
// end closes them; then the process ends. It returns an exit code when
// the worker could not start.
func Main(setup Setup) int {
	limit := memoryLimit()
	reqs, msgs := os.NewFile(3, "requests"), os.NewFile(4, "messages")
	if reqs == nil || msgs == nil {
		fmt.Fprintln(os.Stderr, "hybridgo worker: started without the front end's pipes (it is started by the REPL, not by hand)")
		return 2
	}
	srv := &Server{enc: json.NewEncoder(msgs), stdout: os.Stdout, stderr: os.Stderr, inputs: make(chan Request, 1)}
	if os.Getenv(stdoutEnv) == "terminal" {
		srv.stdout, srv.direct = io.Discard, true // no marks on the terminal
	}
	os.Unsetenv(stdoutEnv)
	s, in, err := setup(srv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hybridgo worker:", err)
		return 1
	}
	srv.s, srv.in = s, in
	applyMemoryLimit(limit)
	srv.send(&Message{Type: TypeReady})
	srv.serve(reqs)
	return 0 // the front end is gone: a cell still running ends with the process
}

// Server is the worker's end of the protocol.
type Server struct {
	s  *repl.Session
	in Inputs

	wmu            sync.Mutex // one message at a time, with its sync mark
	enc            *json.Encoder
	stdout, stderr io.Writer
	direct         bool // stdout is the front end's terminal
	syncs          int

	mu        sync.Mutex
	cur       int // the request running, 0 when none
	early     int // a request interrupted before it began
	ctx       context.Context
	interrupt func()
	inputs    chan Request // input_reply messages

	sent []string // the session's Cells as the front end knows them
}

// serve reads requests until r ends, answering them one at a time in
// a goroutine of their own; interrupts and input replies are taken at
// once.
func (srv *Server) serve(r io.Reader) {
	work := make(chan Request, 16)
	defer close(work)
	go func() {
		for q := range work {
			srv.send(srv.handle(q))
			// Cells costs a microsecond a cell: it is reported after the
			// reply, while the front end shows it.
			switch q.Type {
			case TypeExecute, TypeEval, TypeReset:
				if d := srv.cellsDelta(); d != nil {
					srv.send(&Message{Type: TypeCellsChanged, ID: q.ID, Cells: d})
				}
			}
		}
	}()
	dec := json.NewDecoder(r)
	for {
		var q Request
		if err := dec.Decode(&q); err != nil {
			return
		}
		switch q.Type {
		case TypeInterrupt:
			srv.mu.Lock()
			if srv.cur == q.ID && srv.interrupt != nil {
				srv.interrupt()
			} else {
				srv.early = q.ID // the request has not begun yet
			}
			srv.mu.Unlock()
		case TypeInputReply:
			select {
			case srv.inputs <- q:
			default:
			}
		default:
			work <- q
		}
	}
}

// send writes a sync mark to stdout and stderr, then m.
func (srv *Server) send(m *Message) {
	srv.wmu.Lock()
	defer srv.wmu.Unlock()
	srv.syncs++
	io.WriteString(srv.stdout, syncMark)
	io.WriteString(srv.stderr, syncMark)
	m.Sync = srv.syncs
	srv.enc.Encode(m)
}

// begin makes q the running request; end clears it. An interrupt
// cancels ctx; for an execute request it also interrupts the REPL,
// trying again until the REPL's cell has started (or the request ended).
func (srv *Server) begin(q Request) (ctx context.Context, end func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	srv.mu.Lock()
	srv.cur, srv.ctx = q.ID, ctx
	srv.interrupt = func() {
		cancel()
		if q.Type == TypeExecute && srv.in != nil {
			go func() {
				for !srv.in.Interrupt() {
					select {
					case <-ended:
						return
					case <-time.After(10 * time.Millisecond):
					}
				}
			}()
		}
	}
	if srv.early == q.ID {
		srv.interrupt()
	}
	srv.mu.Unlock()
	return ctx, func() {
		srv.mu.Lock()
		srv.cur, srv.ctx, srv.interrupt = 0, nil, nil
		srv.mu.Unlock()
		close(ended)
		cancel()
	}
}

// handle answers one request.
func (srv *Server) handle(q Request) *Message {
	m := &Message{Type: TypeReply, ID: q.ID}
	if q.Cell > 0 {
		// The session numbers its cells as the front end does, which
		// a restarted worker's replay alone would not.
		srv.s.NumberNextCell(q.Cell)
	}
	switch q.Type {
	case TypeExecute:
		if srv.in == nil {
			m.Error = &CellError{Kind: "error", Message: "this worker runs cells (eval), not terminal inputs"}
			return m
		}
		if q.Columns > 0 {
			os.Setenv("COLUMNS", strconv.Itoa(q.Columns))
		}
		_, end := srv.begin(q)
		m.Quit = srv.in.Execute(q.Code)
		end()
	case TypeEval:
		if q.Quiet && srv.direct {
			defer silenceStdout()()
		}
		ctx, end := srv.begin(q)
		res, err := srv.s.Eval(ctx, q.Code)
		end()
		m.Error = cellError(err)
		if err == nil && res.HasValue {
			m.HasValue, m.Text = true, res.Text
			if q.Render {
				m.Bundle = render(res.Value)
			}
		}
	case TypeComplete:
		m.Matches, m.Start = srv.s.Complete(q.Code, q.Pos)
	case TypeIsComplete:
		m.Status, m.Indent = srv.s.IsComplete(q.Code)
	case TypeDoc:
		m.Text, m.Found = srv.s.Doc(q.Code)
	case TypeVars:
		m.Vars = srv.s.Vars()
	case TypeReset:
		m.Error = cellError(srv.s.Reset())
	case TypeCells:
	default:
		m.Error = &CellError{Kind: "error", Message: fmt.Sprintf("unknown request %q", q.Type)}
	}
	return m
}

// render is display.Render of a cell's value.
func render(v reflect.Value) map[string]any {
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	return display.Render(v.Interface())
}

// cellsDelta reports how the session's Cells changed since the last
// report, nil when they did not.
func (srv *Server) cellsDelta() *CellsDelta {
	cells := srv.s.Cells()
	keep := 0
	for keep < len(cells) && keep < len(srv.sent) && cells[keep] == srv.sent[keep] {
		keep++
	}
	if keep == len(cells) && keep == len(srv.sent) {
		return nil
	}
	srv.sent = cells
	return &CellsDelta{Keep: keep, Add: cells[keep:]}
}

// Display sends package display's output to the front end (a
// display.Publisher: a kernel's worker installs it in its session).
func (srv *Server) Display(b display.Bundle, id string, update bool) {
	srv.mu.Lock()
	cur := srv.cur
	srv.mu.Unlock()
	srv.send(&Message{Type: TypeDisplay, ID: cur, Bundle: b, DisplayID: id, Update: update})
}

// ErrNoInput is returned by Input outside a request.
var ErrNoInput = errors.New("worker: input is only available while a cell runs")

// Input asks the front end for a line of text, showing prompt, and waits
// for the answer (a kernel's jupyter.Input). An interrupt ends the wait
// with repl.ErrInterrupted.
func (srv *Server) Input(prompt string, password bool) (string, error) {
	srv.mu.Lock()
	cur, ctx := srv.cur, srv.ctx
	srv.mu.Unlock()
	if cur == 0 {
		return "", ErrNoInput
	}
	select {
	case <-srv.inputs: // a stale reply
	default:
	}
	srv.send(&Message{Type: TypeInputRequest, ID: cur, Prompt: prompt, Password: password})
	select {
	case q := <-srv.inputs:
		if q.Error != "" {
			return "", errors.New(q.Error)
		}
		return q.Value, nil
	case <-ctx.Done():
		return "", repl.ErrInterrupted
	}
}
