package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hybridgo/hybridgo/repl"
)

// Options configure a Client.
type Options struct {
	// Command is the worker's command line; by default this executable
	// with the argument "worker" (which must then run Main).
	Command []string
	// Stdout and Stderr receive the cells' output (os.Stdout and
	// os.Stderr when nil); Stderr also the lines of a fatal message that
	// turned out to be a cell's own output.
	Stdout, Stderr io.Writer
	// MemoryLimit is the worker's memory limit in bytes: 0 for
	// DefaultMemoryLimit, negative for none.
	MemoryLimit int64
	// Columns, when set, gives the terminal's width with each execute
	// request (the worker's COLUMNS), for what commands draw.
	Columns func() int
	// OnDisplay receives the display messages of a worker that installed
	// its Server as the session's display.Publisher; nil drops them.
	OnDisplay func(m *Message)
	// OnInput answers a cell's request for a line of input; nil refuses.
	OnInput func(prompt string, password bool) (string, error)
}

// Client is the front end's end of a worker: it starts the worker
// process, sends it requests one at a time, copies its output, and
// reports its death (*Death) so that the front end can Restart it.
type Client struct {
	opts  Options
	limit int64
	quiet atomic.Bool // output is dropped (a replay)
	p     atomic.Pointer[proc]

	mu     sync.Mutex // one request at a time
	nextID int
	inputs int    // execute and eval requests sent, numbering the cells
	last   string // the last of them

	cellsMu sync.Mutex
	cells   []string // the worker session's Cells, as its messages said
}

// proc is one worker process.
type proc struct {
	cmd       *exec.Cmd
	wmu       sync.Mutex
	reqs      *os.File
	enc       *json.Encoder
	out, errs *stream
	replies   chan *Message
	running   atomic.Int64  // the id of the request running, 0 when none
	read      chan struct{} // closed when the messages were all read

	done   chan struct{} // closed when the process ended and was diagnosed
	cause  Cause
	detail string
}

// origin is the input a request belongs to, for a death's message.
type origin struct {
	n       int
	text    string
	running bool
}

// Start starts a worker and waits until its session is up.
func Start(opts Options) (*Client, error) {
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	c := &Client{opts: opts, limit: opts.MemoryLimit}
	if c.limit == 0 {
		c.limit = DefaultMemoryLimit()
	}
	p, err := c.spawn()
	if err != nil {
		return nil, err
	}
	c.p.Store(p)
	return c, nil
}

// MemoryLimit returns the worker's memory limit in bytes, -1 for none.
func (c *Client) MemoryLimit() int64 { return c.limit }

// spawn starts a worker process and waits for its ready message.
func (c *Client) spawn() (*proc, error) {
	argv := c.opts.Command
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("worker: %w", err)
		}
		argv = []string{exe, "worker"}
	}
	var pipes []*os.File
	var err error
	pipe := func() (*os.File, *os.File) {
		r, w, perr := os.Pipe()
		if perr != nil {
			err = perr
			return nil, nil
		}
		pipes = append(pipes, r, w)
		return r, w
	}
	reqR, reqW := pipe()
	msgR, msgW := pipe()
	errR, errW := pipe()
	cmd := exec.Command(argv[0], argv[1:]...)
	// One arena of the C library's malloc: each takes 64 MiB of the
	// address space that the memory limit caps.
	cmd.Env = append(os.Environ(), memoryEnv+"="+strconv.FormatInt(max(c.limit, 0), 10), "MALLOC_ARENA_MAX=1")
	// A terminal is the worker's own stdout, so that what cells draw
	// there (progress bars) sees a terminal; the sync marks go to stderr
	// alone then, and the terminal has the output when the write returns.
	var outR, outW *os.File
	if f, ok := c.opts.Stdout.(*os.File); ok && directStdout(f) {
		cmd.Stdout = f
		cmd.Env = append(cmd.Env, stdoutEnv+"=terminal")
	} else {
		outR, outW = pipe()
		cmd.Stdout = outW
	}
	cmd.Stderr = errW
	cmd.ExtraFiles = []*os.File{reqR, msgW} // fds 3 and 4
	detach(cmd)
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		for _, f := range pipes {
			f.Close()
		}
		return nil, fmt.Errorf("worker: %w", err)
	}
	for _, f := range []*os.File{reqR, msgW, errW, outW} {
		if f != nil {
			f.Close() // the worker's ends
		}
	}
	dest := func(w io.Writer) func() io.Writer {
		return func() io.Writer {
			if c.quiet.Load() {
				return io.Discard
			}
			return w
		}
	}
	p := &proc{
		cmd: cmd, reqs: reqW, enc: json.NewEncoder(reqW),
		out: newStream(dest(c.opts.Stdout), false), errs: newStream(dest(c.opts.Stderr), true),
		replies: make(chan *Message, 4), done: make(chan struct{}), read: make(chan struct{}),
	}
	if outR != nil {
		go func() { p.out.copy(outR); outR.Close() }()
	} else {
		p.out.copy(strings.NewReader("")) // nothing to copy: the stream has ended
	}
	go func() { p.errs.copy(errR); errR.Close() }()
	go c.readMessages(p, msgR)
	go p.wait()
	select {
	case m := <-p.replies:
		if m.Type != TypeReady {
			p.stop()
			return nil, fmt.Errorf("worker: the first message is %q, not %q", m.Type, TypeReady)
		}
		return p, nil
	case <-p.done:
		return nil, c.death(p, origin{})
	}
}

// wait waits for the process to end and diagnoses its end.
func (p *proc) wait() {
	p.cmd.Wait()
	held := make(chan string, 1)
	go func() {
		p.out.waitEnd()
		held <- p.errs.waitEnd()
	}()
	stderr := ""
	select {
	case stderr = <-held:
	case <-time.After(2 * time.Second): // a program a cell started holds the pipes
	}
	p.cause, p.detail = Diagnose(stderr, p.cmd.ProcessState)
	p.reqs.Close()
	close(p.done)
}

func (p *proc) dead() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) send(q Request) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return p.enc.Encode(q)
}

// stop ends the process: closing its requests ends it, and if it does not
// end soon (a compiled call that does not return), it is killed. Its
// messages are all read when stop returns.
func (p *proc) stop() {
	p.wmu.Lock()
	p.reqs.Close()
	p.wmu.Unlock()
	select {
	case <-p.done:
	case <-time.After(time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
	<-p.read
}

// readMessages reads the worker's messages, each once the output before
// it was copied, until the worker ends.
func (c *Client) readMessages(p *proc, r *os.File) {
	defer close(p.read)
	defer r.Close()
	dec := json.NewDecoder(r)
	for {
		m := new(Message)
		if err := dec.Decode(m); err != nil {
			return
		}
		p.out.waitMarks(m.Sync)
		p.errs.waitMarks(m.Sync)
		switch m.Type {
		case TypeDisplay:
			if c.opts.OnDisplay != nil && !c.quiet.Load() {
				c.opts.OnDisplay(m)
			}
		case TypeInputRequest:
			go c.answer(p, m)
		case TypeCellsChanged:
			c.cellsMu.Lock()
			keep := min(m.Cells.Keep, len(c.cells))
			c.cells = append(c.cells[:keep:keep], m.Cells.Add...)
			c.cellsMu.Unlock()
		default:
			p.replies <- m
		}
	}
}

// answer answers an input request with OnInput.
func (c *Client) answer(p *proc, m *Message) {
	q := Request{Type: TypeInputReply, ID: m.ID}
	if c.opts.OnInput == nil || c.quiet.Load() {
		q.Error = "input is not available here"
	} else {
		v, err := c.opts.OnInput(m.Prompt, m.Password)
		q.Value = v
		if err != nil {
			q.Error = err.Error()
		}
	}
	p.send(q)
}

// call sends a request and waits for its reply. When the worker is dead,
// or dies, it returns a *Death naming o.
func (c *Client) call(q Request, o origin) (*Message, error) {
	p := c.p.Load()
	if p.dead() {
		o.running = false
		return nil, c.death(p, o)
	}
	c.nextID++
	q.ID = c.nextID
	p.running.Store(int64(q.ID))
	defer p.running.Store(0)
	if err := p.send(q); err != nil {
		<-p.done
		return nil, c.death(p, o)
	}
	var m *Message
	select {
	case m = <-p.replies:
	case <-p.done:
		select {
		case m = <-p.replies: // the reply came before the end
		default:
			return nil, c.death(p, o)
		}
	}
	return m, nil
}

// death describes the end of p, which o was running or had run last.
func (c *Client) death(p *proc, o origin) *Death {
	d := &Death{Cause: p.cause, Detail: p.detail, Input: o.n, Text: o.text, During: o.running, Limit: c.limit}
	if d.Cause == StackOverflow && o.n > 0 {
		<-p.read
		d.Func = recursiveCallee(c.session(), o.text)
	}
	return d
}

// input numbers a new input and returns its origin.
func (c *Client) input(text string) origin {
	c.inputs++
	c.last = text
	return origin{c.inputs, text, true}
}

// last input's origin, for requests that are not inputs.
func (c *Client) lastInput() origin { return origin{c.inputs, c.last, false} }

// Execute runs a whole input of the terminal REPL in the worker: a
// command or a cell, whose output and errors the worker prints. err is a
// *Death when the worker died.
func (c *Client) Execute(input string) (quit bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.input(input)
	q := Request{Type: TypeExecute, Code: input, Cell: o.n}
	if c.opts.Columns != nil {
		q.Columns = c.opts.Columns()
	}
	m, err := c.call(q, o)
	if err != nil {
		return false, err
	}
	if m.Error != nil {
		return false, m.Error
	}
	return m.Quit, nil
}

// Eval runs a cell with Session.Eval in the worker. The reply has the
// value's text, and with render its MIME bundle (display.Render). err is
// the cell's *CellError, or a *Death when the worker died.
func (c *Client) Eval(cell string, render bool) (*Message, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.input(cell)
	m, err := c.call(Request{Type: TypeEval, Code: cell, Render: render, Cell: o.n}, o)
	if err != nil {
		return nil, err
	}
	if m.Error != nil {
		return m, m.Error
	}
	return m, nil
}

// ask sends a request that is not an input; it returns nil when the
// worker is dead.
func (c *Client) ask(q Request) *Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, err := c.call(q, c.lastInput())
	if err != nil {
		return nil
	}
	return m
}

// Complete is Session.Complete in the worker.
func (c *Client) Complete(code string, cursor int) ([]string, int) {
	if m := c.ask(Request{Type: TypeComplete, Code: code, Pos: cursor}); m != nil {
		return m.Matches, m.Start
	}
	return nil, -1
}

// IsComplete is Session.IsComplete in the worker.
func (c *Client) IsComplete(code string) (status, indent string) {
	if m := c.ask(Request{Type: TypeIsComplete, Code: code}); m != nil {
		return m.Status, m.Indent
	}
	return "unknown", ""
}

// Doc is Session.Doc in the worker.
func (c *Client) Doc(name string) (string, bool) {
	if m := c.ask(Request{Type: TypeDoc, Code: name}); m != nil {
		return m.Text, m.Found
	}
	return "", false
}

// Vars is Session.Vars in the worker.
func (c *Client) Vars() []repl.Var {
	if m := c.ask(Request{Type: TypeVars}); m != nil {
		return m.Vars
	}
	return nil
}

// Cells returns the worker session's Cells: what a restart replays.
func (c *Client) Cells() []string {
	c.ask(Request{Type: TypeCells}) // the changes before it are in
	return c.session()
}

// session is the worker session's Cells as its messages said.
func (c *Client) session() []string {
	c.cellsMu.Lock()
	defer c.cellsMu.Unlock()
	return append([]string(nil), c.cells...)
}

// Reset is Session.Reset in the worker.
func (c *Client) Reset() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, err := c.call(Request{Type: TypeReset}, c.lastInput())
	if err != nil {
		return err
	}
	if m.Error != nil {
		return m.Error
	}
	return nil
}

// Interrupt stops the execute or eval request that runs, as a cancelled
// context stops Session.Eval. It reports whether one was running.
func (c *Client) Interrupt() bool {
	p := c.p.Load()
	id := p.running.Load()
	if id == 0 || p.dead() {
		return false
	}
	p.send(Request{Type: TypeInterrupt, ID: int(id)})
	return true
}

// Dead returns the worker's death when it died between requests (a
// goroutine's panic after its cell ended), nil while it lives.
func (c *Client) Dead() *Death {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.p.Load(); p.dead() {
		return c.death(p, c.lastInput())
	}
	return nil
}

// Close ends the worker.
func (c *Client) Close() error {
	c.p.Load().stop()
	return nil
}

// maxReplayDeaths is how many workers may die replaying before the
// session is started empty.
const maxReplayDeaths = 3

// Restored reports a restart.
type Restored struct {
	Cells    int             // cells replayed without error
	Failed   []ReplayFailure // cells that failed, or ended a worker and were left out
	Stopped  bool            // an interrupt stopped the replay
	GaveUp   bool            // workers kept dying: the session starts empty
	Duration time.Duration
}

// ReplayFailure is a replayed cell that failed: Cell is its number in
// the program replayed (Client.Cells), from 1.
type ReplayFailure struct {
	Cell int
	Text string
	Err  error // a *Death when it ended the worker (it is then left out)
}

// Report says what a restart did, a line for each failed cell then one
// for the whole: "restored 12 cells in 0.8 s".
func (r *Restored) Report() string {
	var b strings.Builder
	for _, f := range r.Failed {
		var d *Death
		if errors.As(f.Err, &d) {
			fmt.Fprintf(&b, "replay: %v; cell %d is left out\n", d, f.Cell)
		} else {
			fmt.Fprintf(&b, "replay: cell %d (%s) failed: %s\n", f.Cell, Snippet(f.Text), firstLine(f.Err.Error()))
		}
	}
	cells := fmt.Sprintf("%d cells", r.Cells)
	if r.Cells == 1 {
		cells = "1 cell"
	}
	took := fmt.Sprintf("%.1f s", r.Duration.Seconds())
	if r.Duration < time.Second {
		took = fmt.Sprintf("%d ms", r.Duration.Milliseconds())
	}
	switch {
	case r.GaveUp:
		fmt.Fprintf(&b, "workers kept dying during the replay: the session starts empty\n")
	case r.Stopped:
		fmt.Fprintf(&b, "replay interrupted: restored %s in %s\n", cells, took)
	default:
		fmt.Fprintf(&b, "restored %s in %s\n", cells, took)
	}
	return b.String()
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Restart ends the worker (if it lives) and starts a new one; with
// replay, the cells of the old session (Cells) run in it again, their
// output dropped. A replayed cell that fails is reported and the replay
// goes on; one that ends the worker is left out and the replay starts
// over, at most maxReplayDeaths times before the session starts empty.
func (c *Client) Restart(replay bool) (*Restored, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	c.call(Request{Type: TypeCells}, c.lastInput()) // a live worker's last changes
	c.p.Load().stop()
	cells := c.session()
	if !replay {
		cells = nil
	}
	r := &Restored{}
	var killers []ReplayFailure
	left := map[int]bool{}
	for deaths := 0; ; {
		c.p.Load().stop()
		c.cellsMu.Lock()
		c.cells = nil
		c.cellsMu.Unlock()
		p, err := c.spawn()
		if err != nil {
			return nil, err
		}
		c.p.Store(p)
		r.Cells, r.Failed = 0, nil
		died := false
		c.quiet.Store(true)
		for i, cell := range cells {
			if left[i] {
				continue
			}
			m, err := c.call(Request{Type: TypeEval, Code: cell, Quiet: true}, origin{i + 1, cell, true})
			var d *Death
			switch {
			case errors.As(err, &d):
				left[i], died = true, true
				killers = append(killers, ReplayFailure{i + 1, cell, d})
			case m.Error != nil && errors.Is(m.Error, repl.ErrInterrupted):
				r.Stopped = true
			case m.Error != nil:
				r.Failed = append(r.Failed, ReplayFailure{i + 1, cell, m.Error})
			default:
				r.Cells++
			}
			if died || r.Stopped {
				break
			}
		}
		c.quiet.Store(false)
		if !died {
			break
		}
		if deaths++; deaths == maxReplayDeaths {
			r.GaveUp, cells = true, nil
		}
	}
	r.Failed = append(killers, r.Failed...)
	sort.SliceStable(r.Failed, func(i, j int) bool { return r.Failed[i].Cell < r.Failed[j].Cell })
	r.Duration = time.Since(start)
	return r, nil
}
