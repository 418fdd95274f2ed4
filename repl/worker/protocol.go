package worker

import (
	"errors"

	"github.com/hybridgo/hybridgo/repl"
)

// Request types: what the front end asks of the worker (Request.Type).
const (
	TypeExecute    = "execute"     // Code: a whole input of the terminal REPL, a command or a cell; reply: Quit
	TypeEval       = "eval"        // Code: a cell for Session.Eval; Render: its value as a MIME bundle; Quiet: no output (a replay); reply: HasValue, Text, Bundle, Error
	TypeComplete   = "complete"    // Code, Pos; reply: Matches, Start
	TypeIsComplete = "is_complete" // Code; reply: Status, Indent
	TypeDoc        = "doc"         // Code: a name; reply: Text, Found
	TypeVars       = "vars"        // reply: Vars
	TypeReset      = "reset"       // reply: Error
	TypeCells      = "cells"       // reply: nothing, after the cells_changed messages of the requests before it
	TypeInterrupt  = "interrupt"   // ID: the execute or eval request to stop, as when Eval's context ends; no reply
	TypeInputReply = "input_reply" // Value, or Error: the answer to an input_request
)

// Message types: what the worker sends (Message.Type).
const (
	TypeReady        = "ready"         // the session is up; the first message
	TypeReply        = "reply"         // the answer to request ID
	TypeDisplay      = "display"       // package display's output during request ID: Bundle, DisplayID, Update
	TypeInputRequest = "input_request" // a cell asks for a line of input: Prompt, Password
	TypeCellsChanged = "cells_changed" // after the reply to execute, eval or reset that changed the session's Cells: Cells
)

// Request is a message from the front end to the worker: one JSON object
// per line on the worker's file descriptor 3.
type Request struct {
	ID      int    `json:"id"`
	Type    string `json:"type"`
	Code    string `json:"code,omitempty"`
	Pos     int    `json:"pos,omitempty"`
	Render  bool   `json:"render,omitempty"`
	Quiet   bool   `json:"quiet,omitempty"`
	Columns int    `json:"columns,omitempty"` // the terminal's width, for what execute draws
	Cell    int    `json:"cell,omitempty"`    // the front end's number of the input, which messages name ("cell 12")
	Value   string `json:"value,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Message is a message from the worker to the front end: one JSON object
// per line on the worker's file descriptor 4. Sync is the number of sync
// marks the worker had written to its stdout and stderr when it sent the
// message; the front end acts on the message once it has read that many
// from both, so that a cell's output comes before its reply.
type Message struct {
	ID   int    `json:"id"`
	Type string `json:"type"`
	Sync int    `json:"sync"`

	Quit     bool           `json:"quit,omitempty"`
	HasValue bool           `json:"has_value,omitempty"`
	Text     string         `json:"text,omitempty"`
	Bundle   map[string]any `json:"bundle,omitempty"`
	Error    *CellError     `json:"error,omitempty"`
	Cells    *CellsDelta    `json:"cells,omitempty"`

	Matches []string   `json:"matches,omitempty"`
	Start   int        `json:"start,omitempty"`
	Status  string     `json:"status,omitempty"`
	Indent  string     `json:"indent,omitempty"`
	Found   bool       `json:"found,omitempty"`
	Vars    []repl.Var `json:"vars,omitempty"`

	DisplayID string `json:"display_id,omitempty"`
	Update    bool   `json:"update,omitempty"`
	Prompt    string `json:"prompt,omitempty"`
	Password  bool   `json:"password,omitempty"`
}

// CellsDelta is how the session's Cells changed during a request: the
// first Keep cells stay, Add follow them.
type CellsDelta struct {
	Keep int      `json:"keep"`
	Add  []string `json:"add,omitempty"`
}

// CellError is a cell's error, as the worker reported it. Kind is
// "compile" (*repl.CompileError), "panic" (*repl.PanicError),
// "interrupted" (repl.ErrInterrupted) or "error".
type CellError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (e *CellError) Error() string { return e.Message }

// Is makes errors.Is(err, repl.ErrInterrupted) hold for an interrupted
// cell.
func (e *CellError) Is(target error) bool {
	return e.Kind == "interrupted" && target == repl.ErrInterrupted
}

// cellError describes err for the front end.
func cellError(err error) *CellError {
	if err == nil {
		return nil
	}
	var ce *repl.CompileError
	var pe *repl.PanicError
	kind := "error"
	switch {
	case errors.Is(err, repl.ErrInterrupted):
		kind = "interrupted"
	case errors.As(err, &ce):
		kind = "compile"
	case errors.As(err, &pe):
		kind = "panic"
	}
	return &CellError{Kind: kind, Message: err.Error()}
}

// stdoutEnv says "terminal" to a worker whose stdout is the front end's
// terminal: it writes sync marks to stderr alone.
const stdoutEnv = "HYBRIDGO_WORKER_STDOUT"

// syncMark is what the worker writes to its stdout and stderr before each
// message (see Message.Sync); the front end takes it out of the streams.
const syncMark = "\x00hybridgo-sync\x00"
