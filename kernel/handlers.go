package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hybridgo/hybridgo/repl/worker"
)

// Version is the kernel's implementation version, in kernel_info.
var Version = "0.1.0-dev"

// handleControl answers control requests at once, even while a cell runs.
func (k *Kernel) handleControl(m *Message) {
	switch m.Header.MsgType {
	case "shutdown_request":
		k.shutdown(k.controlOut, m)
	case "interrupt_request":
		k.interrupt()
		k.send(k.controlOut, m, "interrupt_reply", map[string]any{"status": "ok"})
	case "kernel_info_request":
		k.send(k.controlOut, m, "kernel_info_reply", k.kernelInfo())
	default:
		k.log.Printf("control: %s not handled", m.Header.MsgType)
	}
}

// shutdown replies, waits until the reply is written, and stops.
func (k *Kernel) shutdown(c chan *Message, m *Message) {
	var req struct {
		Restart bool `json:"restart"`
	}
	_ = json.Unmarshal(m.Content, &req)
	k.interrupt()
	r, err := reply(k.session, m, "shutdown_reply", map[string]any{"status": "ok", "restart": req.Restart})
	if err != nil {
		k.stop()
		return
	}
	r.sent = make(chan struct{})
	c <- r
	select {
	case <-r.sent:
	case <-time.After(2 * time.Second):
	}
	k.publish(m, "status", map[string]any{"execution_state": "idle"})
	time.Sleep(50 * time.Millisecond)
	k.stop()
}

// shellLoop handles shell requests one at a time, in order.
func (k *Kernel) shellLoop() {
	for {
		select {
		case m := <-k.shellIn:
			k.handleShell(m)
		case <-k.done:
			return
		}
	}
}

func (k *Kernel) handleShell(m *Message) {
	k.publish(m, "status", map[string]any{"execution_state": "busy"})
	defer k.publish(m, "status", map[string]any{"execution_state": "idle"})
	defer func() {
		if r := recover(); r != nil {
			k.replyPanic(m, r)
		}
	}()
	switch m.Header.MsgType {
	case "kernel_info_request":
		k.send(k.shellOut, m, "kernel_info_reply", k.kernelInfo())
	case "execute_request":
		if !k.execute(m) {
			k.abortQueued()
		}
	case "complete_request":
		k.complete(m)
	case "inspect_request":
		k.inspect(m)
	case "is_complete_request":
		var req struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(m.Content, &req)
		status, indent := k.worker.IsComplete(req.Code)
		c := map[string]any{"status": status}
		if status == "incomplete" {
			c["indent"] = indent
		}
		k.send(k.shellOut, m, "is_complete_reply", c)
	case "history_request":
		k.historyReply(m)
	case "comm_info_request":
		k.send(k.shellOut, m, "comm_info_reply", map[string]any{"status": "ok", "comms": map[string]any{}})
	case "comm_open":
		// No comm targets: close it again, as the protocol asks.
		var req struct {
			CommID string `json:"comm_id"`
		}
		_ = json.Unmarshal(m.Content, &req)
		k.publish(m, "comm_close", map[string]any{"comm_id": req.CommID, "data": map[string]any{}})
	case "comm_msg", "comm_close":
	case "shutdown_request":
		k.shutdown(k.shellOut, m)
	default:
		k.log.Printf("shell: %s not handled", m.Header.MsgType)
	}
}

// replyPanic answers a request whose handling panicked (a bug of the
// kernel's: cells run in the worker) with an error reply, so that
// the kernel lives on.
func (k *Kernel) replyPanic(m *Message, r any) {
	k.log.Printf("shell: %s panicked: %v", m.Header.MsgType, r)
	msgType, ok := strings.CutSuffix(m.Header.MsgType, "_request")
	if !ok {
		return
	}
	evalue := fmt.Sprint(r)
	tb := []string{"\x1b[31mPanic\x1b[0m: " + evalue}
	content := map[string]any{"status": "error", "ename": "Panic", "evalue": evalue, "traceback": tb}
	if msgType == "execute" {
		k.setCell(nil, false, nil)
		k.mu.Lock()
		if k.cancel != nil {
			k.cancel()
		}
		k.cancel, k.current = nil, nil
		k.mu.Unlock()
		content["execution_count"] = k.count
		k.publish(m, "error", map[string]any{"ename": "Panic", "evalue": evalue, "traceback": tb})
	}
	k.send(k.shellOut, m, msgType+"_reply", content)
}

func (k *Kernel) kernelInfo() map[string]any {
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       ProtocolVersion,
		"implementation":         "hybridgo",
		"implementation_version": Version,
		"language_info": map[string]any{
			"name":               "go",
			"version":            strings.TrimPrefix(runtime.Version(), "go"),
			"mimetype":           "text/x-go",
			"file_extension":     ".go",
			"pygments_lexer":     "go",
			"codemirror_mode":    "go",
			"nbconvert_exporter": "script",
		},
		"banner":     "hybridgo " + Version + ": Go, interpreted, with MXNet Gluon's hybrid programming model preloaded",
		"help_links": []any{},
	}
}

type executeRequest struct {
	Code         string `json:"code"`
	Silent       bool   `json:"silent"`
	StoreHistory *bool  `json:"store_history"`
	AllowStdin   bool   `json:"allow_stdin"`
	StopOnError  *bool  `json:"stop_on_error"`
}

// execute runs a cell; it returns false when the cell failed and queued
// requests are to be aborted.
func (k *Kernel) execute(m *Message) bool {
	var req executeRequest
	if err := json.Unmarshal(m.Content, &req); err != nil {
		k.send(k.shellOut, m, "execute_reply", map[string]any{"status": "error", "execution_count": k.count,
			"ename": "BadRequest", "evalue": err.Error(), "traceback": []string{err.Error()}})
		return true
	}
	store := (req.StoreHistory == nil || *req.StoreHistory) && !req.Silent
	stopOnError := req.StopOnError == nil || *req.StopOnError
	if store {
		k.count++
		k.history = append(k.history, req.Code)
	}
	n := k.count
	if !req.Silent {
		k.publish(m, "execute_input", map[string]any{"code": req.Code, "execution_count": n})
	}
	ctx, cancel := context.WithCancel(context.Background())
	k.mu.Lock()
	k.cancel, k.current = cancel, m
	k.mu.Unlock()
	k.out.begin(m, req.Silent)
	k.errw.begin(m, req.Silent)
	k.setCell(m, req.AllowStdin, ctx)
	k.revive()
	var res *worker.Message
	err := ctx.Err()
	if err == nil {
		res, err = k.worker.Eval(req.Code, true)
	} else { // interrupted before it began (during a restart)
		err = &worker.CellError{Kind: "interrupted", Message: err.Error()}
	}
	var tail []string // after the error's first line
	var d *worker.Death
	if errors.As(err, &d) {
		tail = k.restart()
	}
	k.setCell(nil, false, nil)
	k.flushOutput()
	k.mu.Lock()
	k.cancel, k.current = nil, nil
	k.mu.Unlock()
	cancel()
	if err != nil {
		ename, evalue, tb := describeError(err)
		tb = append(tb, tail...)
		content := map[string]any{"status": "error", "execution_count": n, "ename": ename, "evalue": evalue, "traceback": tb}
		if !req.Silent {
			k.publish(m, "error", map[string]any{"ename": ename, "evalue": evalue, "traceback": tb})
		}
		k.send(k.shellOut, m, "execute_reply", content)
		return !stopOnError
	}
	if res.HasValue && !req.Silent {
		k.publish(m, "execute_result", map[string]any{"execution_count": n, "data": withText(res.Bundle, res.Text), "metadata": map[string]any{}})
	}
	k.send(k.shellOut, m, "execute_reply", map[string]any{"status": "ok", "execution_count": n, "user_expressions": map[string]any{}, "payload": []any{}})
	return true
}

// restart starts a new worker after one died in a cell, with the cells
// replayed unless the kernel was told not to; it returns the lines that
// say what was restored, for the cell's error.
func (k *Kernel) restart() []string {
	select {
	case <-k.done: // the worker was ended by a shutdown
		return nil
	default:
	}
	r, err := k.worker.Restart(k.replay)
	switch {
	case err != nil:
		return []string{"the worker could not start again: " + err.Error()}
	case !k.replay:
		return []string{"the session restarted empty (the kernel runs with -no-replay)"}
	}
	return strings.Split(strings.TrimRight(r.Report(), "\n"), "\n")
}

// revive restarts a worker that died between cells (a goroutine's panic
// after its cell ended), saying so on the cell's stderr.
func (k *Kernel) revive() {
	d := k.worker.Dead()
	if d == nil {
		return
	}
	fmt.Fprintln(k.errw, d.Restarted("session restarted"))
	for _, l := range k.restart() {
		fmt.Fprintln(k.errw, l)
	}
}

// deathNames are the error names of a worker's deaths, by cause.
var deathNames = map[worker.Cause]string{
	worker.StackOverflow:  "StackOverflow",
	worker.OutOfMemory:    "OutOfMemory",
	worker.GoroutinePanic: "GoroutinePanic",
	worker.FatalError:     "FatalError",
	worker.Killed:         "WorkerKilled",
	worker.Exited:         "WorkerExited",
}

// interruptedText is the message of a cell stopped by an interrupt.
const interruptedText = "the cell was interrupted; the kernel keeps its variables"

// describeError gives ename, evalue and traceback lines for err: a
// cell's *worker.CellError, or the *worker.Death of the worker that ran
// it, whose evalue says in one line what happened.
func describeError(err error) (ename, evalue string, tb []string) {
	var ce *worker.CellError
	var d *worker.Death
	text := err.Error()
	evalue = text
	switch {
	case errors.As(err, &d):
		ename, evalue = deathNames[d.Cause], d.Restarted("session restarted")
		text = evalue
	case errors.As(err, &ce) && ce.Kind == "interrupted":
		// Not the context's "interrupted: context canceled": what happened,
		// in the words of the Kernel menu.
		ename, evalue, text = "Interrupted", interruptedText, interruptedText
	case errors.As(err, &ce) && ce.Kind == "compile":
		ename = "CompileError"
	case errors.As(err, &ce) && ce.Kind == "panic":
		ename = "Panic"
		evalue = strings.TrimPrefix(firstLine(text), "panic: ")
	default:
		ename = "Error"
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	tb = append(tb, "\x1b[31m"+ename+"\x1b[0m: "+lines[0])
	tb = append(tb, lines[1:]...)
	return ename, evalue, tb
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// abortQueued answers the execute requests already queued with status
// aborted (stop_on_error); other requests are served.
func (k *Kernel) abortQueued() {
	for {
		select {
		case m := <-k.shellIn:
			if m.Header.MsgType != "execute_request" {
				k.handleShell(m)
				continue
			}
			k.publish(m, "status", map[string]any{"execution_state": "busy"})
			// No execution_count: the cell did not run, and a front end
			// shows the count it is given ("In [29]").
			k.send(k.shellOut, m, "execute_reply", map[string]any{"status": "aborted"})
			k.publish(m, "status", map[string]any{"execution_state": "idle"})
		default:
			return
		}
	}
}

// runeToByte converts a cursor in code points to a byte offset.
func runeToByte(s string, cursor int) int {
	if cursor <= 0 {
		return 0
	}
	n := 0
	for i := range s {
		if n == cursor {
			return i
		}
		n++
	}
	return len(s)
}

// byteToRune converts a byte offset to a cursor in code points.
func byteToRune(s string, off int) int {
	if off > len(s) {
		off = len(s)
	}
	return utf8.RuneCountInString(s[:off])
}

type cursorRequest struct {
	Code      string `json:"code"`
	CursorPos *int   `json:"cursor_pos"`
}

func (r cursorRequest) cursor() int {
	if r.CursorPos == nil {
		return len(r.Code)
	}
	return runeToByte(r.Code, *r.CursorPos)
}

func (k *Kernel) complete(m *Message) {
	var req cursorRequest
	_ = json.Unmarshal(m.Content, &req)
	cur := req.cursor()
	matches, start := k.worker.Complete(req.Code, cur)
	if matches == nil {
		matches = []string{}
	}
	k.send(k.shellOut, m, "complete_reply", map[string]any{
		"status": "ok", "matches": matches,
		"cursor_start": byteToRune(req.Code, start), "cursor_end": byteToRune(req.Code, cur),
		"metadata": map[string]any{},
	})
}

// wordAt is the dotted name (pkg.Name.Method) around byte offset cur.
func wordAt(code string, cur int) string {
	isName := func(r rune) bool { return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	start, end := cur, cur
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(code[:start])
		if !isName(r) {
			break
		}
		start -= size
	}
	for end < len(code) {
		r, size := utf8.DecodeRuneInString(code[end:])
		if !isName(r) {
			break
		}
		end += size
	}
	return strings.Trim(code[start:end], ".")
}

func (k *Kernel) inspect(m *Message) {
	var req cursorRequest
	_ = json.Unmarshal(m.Content, &req)
	word := wordAt(req.Code, req.cursor())
	doc, found := "", false
	// The longest prefix of the dotted name that has documentation.
	for w := word; w != "" && !found; {
		doc, found = k.worker.Doc(w)
		i := strings.LastIndex(w, ".")
		if i < 0 {
			break
		}
		w = w[:i]
	}
	data := map[string]any{}
	if found {
		data["text/plain"] = doc
	}
	k.send(k.shellOut, m, "inspect_reply", map[string]any{"status": "ok", "found": found, "data": data, "metadata": map[string]any{}})
}

func (k *Kernel) historyReply(m *Message) {
	var req struct {
		Output         bool   `json:"output"`
		HistAccessType string `json:"hist_access_type"`
		N              int    `json:"n"`
	}
	_ = json.Unmarshal(m.Content, &req)
	entries := []any{}
	first := 0
	if req.HistAccessType == "tail" && req.N > 0 && req.N < len(k.history) {
		first = len(k.history) - req.N
	}
	for i := first; i < len(k.history); i++ {
		if req.Output {
			entries = append(entries, []any{0, i + 1, []any{k.history[i], nil}})
		} else {
			entries = append(entries, []any{0, i + 1, k.history[i]})
		}
	}
	k.send(k.shellOut, m, "history_reply", map[string]any{"status": "ok", "history": entries})
}

// streamWriter turns what a cell writes into stream messages: flushed
// every 50ms while the cell runs, and when it ends.
type streamWriter struct {
	k      *Kernel
	name   string
	mu     sync.Mutex
	buf    []byte
	parent *Message
	silent bool
	timer  *time.Timer
}

func newStreamWriter(k *Kernel, name string) *streamWriter {
	return &streamWriter{k: k, name: name}
}

func (w *streamWriter) begin(parent *Message, silent bool) {
	w.mu.Lock()
	w.parent, w.silent = parent, silent
	w.mu.Unlock()
}

func (w *streamWriter) end() {
	w.mu.Lock()
	w.flushLocked()
	w.mu.Unlock()
}

func (w *streamWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.parent == nil {
		// Output from outside any cell: to the log.
		w.k.logOut.Write(p)
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	if w.timer == nil {
		w.timer = time.AfterFunc(50*time.Millisecond, func() {
			w.mu.Lock()
			w.timer = nil
			w.flushLocked()
			w.mu.Unlock()
		})
	}
	return len(p), nil
}

func (w *streamWriter) flushLocked() {
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if len(w.buf) == 0 || w.parent == nil {
		w.buf = w.buf[:0]
		return
	}
	text := strings.ToValidUTF8(string(w.buf), "\uFFFD")
	w.buf = w.buf[:0]
	w.k.publish(w.parent, "stream", map[string]any{"name": w.name, "text": text})
}
