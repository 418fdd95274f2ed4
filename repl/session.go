package repl

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"os"
	"reflect"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/symbols"
)

// Options says where the output of cells goes, and what more they can
// import.
type Options struct {
	Stdout, Stderr io.Writer // os.Stdout and os.Stderr when nil

	// Packages are more packages for cells to import, as symbol tables
	// keyed "<import path>/<package name>" like Symbols. The kernel binds
	// "hybridgo/jupyter" to itself this way.
	Packages map[string]map[string]reflect.Value
}

// Result is what a cell evaluated to.
type Result struct {
	Value    reflect.Value // the value of a final expression statement; invalid otherwise
	HasValue bool
	Text     string // how to display Value
}

// Var is a variable declared in the session.
type Var struct {
	Name, Type, Summary string
}

// PanicError is a panic that escaped a cell: its value and the
// interpreted frames it went through ("line:col: function"), innermost
// first, with the lines of the cells that declared them.
type PanicError struct {
	Value  any
	Frames []string
}

func (e *PanicError) Error() string {
	msg := fmt.Sprintf("panic: %v", e.Value)
	if err, ok := e.Value.(error); ok {
		msg = "panic: " + err.Error()
	}
	if len(e.Frames) > 0 {
		msg += "\n\t" + strings.Join(e.Frames, "\n\t")
	}
	return msg
}

// ErrInterrupted is returned when a cell's context ends before it does.
var ErrInterrupted = errors.New("interrupted")

// Session is an interpreted Go session with hybridgo preloaded: the
// state behind the terminal REPL, the notebook kernel and `hybridgo run`.
// Its methods may be called from several goroutines; cells run one at a
// time, in the whole process (see Eval).
type Session struct {
	mu      sync.Mutex
	opts    Options
	state   *eager.State // modes, random stream, names: current while a cell runs
	in      *world
	history []*record
	runMode bool         // a func main is renamed (see Run)
	current *parsedCell  // the cell being run
	cells   atomic.Int64 // the cells evaluated so far, the current one included
}

// world is one interpreter and what is known about it.
type world struct {
	in       *interp.Interpreter
	stdout   *switchWriter
	stderr   *frameFilter
	imported map[string]string // package name -> import path
	types    map[reflect.Type]string
	busy     chan struct{} // an interrupted eval still finishing
}

// record is a cell that ran; dropped marks its declarations that later
// cells replaced.
type record struct {
	cell    *parsedCell
	dropped map[int]bool
}

// NewSession starts a session with the standard library and hybridgo's
// packages importable, and the packages PreImports lists imported. The
// session has an eager.State of its own, fresh as in a new process:
// recording and training off, the random generator seeded with 0, block
// names from net0, dense0…
func NewSession(o Options) (*Session, error) {
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	o.Stderr = &lockedWriter{w: o.Stderr} // cells' goroutines report there too
	s := &Session{opts: o, state: eager.NewState()}
	w, err := s.newWorld()
	if err != nil {
		return nil, err
	}
	s.in = w
	return s, nil
}

// preImports are imported in every session, under their package names.
var preImports = []string{
	"fmt", "math", "strings",
	"github.com/hybridgo/hybridgo/ops",
	"github.com/hybridgo/hybridgo/eager",
	"github.com/hybridgo/hybridgo/graph",
	"github.com/hybridgo/hybridgo/format/mxnet",
	"github.com/hybridgo/hybridgo/nn",
	"github.com/hybridgo/hybridgo/nn/loss",
	"github.com/hybridgo/hybridgo/nn/metric",
	"github.com/hybridgo/hybridgo/nn/optim",
	"github.com/hybridgo/hybridgo/nn/vision",
	"github.com/hybridgo/hybridgo/nn/rnn",
	"github.com/hybridgo/hybridgo/data",
	"github.com/hybridgo/hybridgo/display",
	"github.com/hybridgo/hybridgo/viz",
	"github.com/hybridgo/hybridgo/profiler",
	"github.com/hybridgo/hybridgo/repl/nd",
	"github.com/hybridgo/hybridgo/repl/sym",
}

// PreImports returns the packages every session imports in advance, by
// the name cells use for them: nd, nn, ops, fmt, …
func PreImports() map[string]string {
	m := make(map[string]string, len(preImports))
	for _, p := range preImports {
		m[packageName(p)] = p
	}
	return m
}

// runtimePath is the import path of the session's own helpers.
const runtimePath = "hybridgo/replrt"

// prelude declares what yaegi lacks (min, max, clear) and the session's
// names: F (eager.F) and Go.
const preludeDecls = `
type __hgOrdered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}

// min returns the smallest of its arguments (Go's builtin, which the
// interpreter lacks).
func min[T __hgOrdered](x T, ys ...T) T {
	for _, y := range ys {
		if y < x {
			x = y
		}
	}
	return x
}

// max returns the largest of its arguments (Go's builtin, which the
// interpreter lacks).
func max[T __hgOrdered](x T, ys ...T) T {
	for _, y := range ys {
		if y > x {
			x = y
		}
	}
	return x
}

// clear deletes every entry of a map or zeroes every element of a slice
// (Go's builtin, which the interpreter lacks).
func clear(x interface{}) { __hgrt.Clear(x) }

// Go runs fn in a goroutine; a panic in it is reported, not fatal.
func Go(fn func()) { __hgrt.Go(fn) }
`

const preludeStmts = ";\nF := eager.F\n"

// hidden are names the session declares for itself, left out of Vars.
var hidden = map[string]bool{"F": true}

func (s *Session) newWorld() (*world, error) {
	w := &world{
		stdout:   &switchWriter{w: s.opts.Stdout},
		imported: map[string]string{},
	}
	w.stderr = &frameFilter{out: s.opts.Stderr}
	w.in = interp.New(interp.Options{Stdout: w.stdout, Stderr: w.stderr, Args: []string{"hybridgo"}})
	for _, e := range []interp.Exports{stdlib.Symbols, symbols.Symbols, Symbols, s.opts.Packages, s.runtime()} {
		if err := w.in.Use(e); err != nil {
			return nil, err
		}
	}
	for _, p := range preImports {
		if err := w.importPath("", p); err != nil {
			return nil, err
		}
	}
	if err := w.importPath("__hgrt", runtimePath); err != nil {
		return nil, err
	}
	for _, src := range []string{preludeDecls, preludeStmts} {
		if _, err := w.eval(context.Background(), src); err != nil {
			return nil, fmt.Errorf("repl: the prelude failed: %w", err)
		}
	}
	return w, nil
}

// runtime is the package of the session's own helpers (runtimePath),
// imported as __hgrt: Go starts the goroutines of cells' go statements
// (see rewriteGo), Clear is the clear builtin.
func (s *Session) runtime() interp.Exports {
	return interp.Exports{runtimePath + "/replrt": {
		"Go": reflect.ValueOf(func(fn func()) {
			goReport(s.opts.Stderr, fmt.Sprintf("a goroutine started by cell %d", s.cells.Load()), fn)
		}),
		"Clear": reflect.ValueOf(Clear),
	}}
}

// Go runs fn in a new goroutine and reports a panic in it to os.Stderr
// instead of ending the program. In a session, cells get a Go that
// reports to the session's Stderr.
func Go(fn func()) { goReport(os.Stderr, "a goroutine started with Go", fn) }

// goReport runs fn in a goroutine and reports a panic in it to w as
// "panic in WHAT: value".
func goReport(w io.Writer, what string, fn func()) {
	go func() {
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(w, "panic in %s: %v\n", what, r)
			}
		}()
		fn()
	}()
}

// Clear is Go's clear builtin for the interpreter: it deletes every
// entry of a map and zeroes every element of a slice.
func Clear(x any) {
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Map:
		v.Clear()
	case reflect.Slice:
		v.Clear()
	default:
		panic(fmt.Sprintf("clear: argument must be a map or a slice, not %T", x))
	}
}

// importPath imports path under name (its own name when empty), once.
func (w *world) importPath(name, path string) error {
	pkg := name
	if pkg == "" || pkg == "." {
		pkg = packageName(path)
	}
	if old, ok := w.imported[pkg]; ok && old == path {
		return nil
	}
	src := "import " + strconv.Quote(path)
	if name != "" {
		src = "import " + name + " " + strconv.Quote(path)
	}
	if _, err := w.eval(context.Background(), src); err != nil {
		return err
	}
	w.imported[pkg] = path
	return nil
}

// packageName is the name a package is known by: the last element of its
// path, skipping a major version suffix.
func packageName(path string) string {
	parts := strings.Split(path, "/")
	n := parts[len(parts)-1]
	if len(parts) > 1 && len(n) > 1 && n[0] == 'v' && strings.Trim(n[1:], "0123456789") == "" {
		n = parts[len(parts)-2]
	}
	return n
}

// eval runs src in the interpreter, turning escaping Go panics into
// errors and stopping at ctx's end.
//
// yaegi's EvalWithContext returns at once when its context ends, leaving
// the stopped code to unwind in a goroutine nobody can wait for, which
// races with the next Eval. So the session calls it with a context that
// never ends, in a goroutine of its own, and stops the code itself (see
// stopInterp), then waits for it: briefly, and if a compiled call is
// still in flight, the next eval waits for it to finish.
func (w *world) eval(ctx context.Context, src string) (v reflect.Value, err error) {
	if w.busy != nil {
		<-w.busy
		w.busy = nil
	}
	done := make(chan struct{})
	var frames []string
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				err = &InternalError{Value: r, Stack: string(debug.Stack())}
			}
		}()
		w.stderr.begin()
		v, err = w.in.EvalWithContext(context.Background(), src)
		frames = w.stderr.end()
	}()
	select {
	case <-done:
	case <-ctx.Done():
		stopInterp(w.in)
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			w.busy = done
		}
		return reflect.Value{}, fmt.Errorf("%w: %v", ErrInterrupted, ctx.Err())
	}
	var p interp.Panic
	if errors.As(err, &p) {
		return reflect.Value{}, runPanic(p, frames)
	}
	return v, err
}

// stopInterp does what the interpreter does when the context of
// EvalWithContext ends (its unexported stop): it bumps the run id, which
// running interpreted code checks at each step, and closes the channel
// that its channel operations select on. yaegi v0.16.1's fields are
// reached through reflect; if they are not found, nothing is stopped.
func stopInterp(in *interp.Interpreter) {
	v := reflect.ValueOf(in).Elem()
	id, mu, done := unexported(v, "id"), unexported(v, "mutex"), unexported(v, "done")
	if !id.IsValid() || id.Kind() != reflect.Uint64 || !mu.IsValid() || mu.Type() != reflect.TypeOf(sync.RWMutex{}) ||
		!done.IsValid() || done.Type() != reflect.TypeOf((chan struct{})(nil)) {
		return
	}
	atomic.AddUint64(id.Addr().Interface().(*uint64), 1)
	m := mu.Addr().Interface().(*sync.RWMutex)
	m.Lock()
	defer m.Unlock()
	ch := done.Interface().(chan struct{})
	if ch == nil {
		return
	}
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// cellMu lets one cell run at a time in the process, whichever session
// it belongs to: a running cell makes its session's eager.State the
// current one, and there is one current state per process.
var cellMu sync.Mutex

// enter waits until no cell of any session runs, then makes the session's
// state current; leave undoes both.
func (s *Session) enter() (leave func()) {
	cellMu.Lock()
	restore := eager.UseState(s.state)
	return func() {
		restore()
		cellMu.Unlock()
	}
}

// InState runs fn with the session's eager.State current, as a cell
// runs: a front end's command that changes what the session's cells see
// (the terminal's ":trace on") goes through it.
func (s *Session) InState(fn func()) {
	leave := s.enter()
	defer leave()
	fn()
}

// NumberNextCell makes n the number of the next cell Eval runs, the
// number messages give it ("a goroutine started by cell 12"), for a front
// end whose numbering outlives the session (a worker restarted and
// replayed goes on counting the inputs the person typed).
func (s *Session) NumberNextCell(n int) { s.cells.Store(int64(n - 1)) }

// Eval runs a cell: imports, then type and function declarations, then
// statements (var and const declarations among them) in order. The value
// of a final expression statement is returned with its display text.
//
// The cell runs with the session's eager.State current, after any cell
// of another session in the process has ended, so that sessions do not
// see each other's modes, random streams or names. A goroutine a cell
// leaves running after it ends sees whichever state is current then.
func (s *Session) Eval(ctx context.Context, cell string) (res Result, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	leave := s.enter()
	defer leave()
	s.cells.Add(1)
	snap := snapshot(s.in.in)
	defer func() {
		if p := recover(); p != nil {
			snap.restore()
			err = &InternalError{Value: p, Stack: string(debug.Stack())}
		}
		var ie *InternalError
		if errors.As(err, &ie) && ie.Cell == "" {
			ie.Cell = cell
		}
	}()
	res, pc, err := s.evalCell(ctx, cell)
	if err != nil && !ranPartly(err) {
		snap.restore()
	}
	if err != nil && pc != nil {
		err = s.plainError(pc, err)
	}
	return res, err
}

// evalCell parses, checks and runs a cell; pc is the parsed cell, nil
// when it does not parse.
func (s *Session) evalCell(ctx context.Context, cell string) (Result, *parsedCell, error) {
	pc, err := parseCell(cell)
	if err != nil {
		return Result{}, nil, err
	}
	if err := s.checkUnsupported(pc); err != nil {
		return Result{}, pc, err
	}
	if err := s.checkAsGo(pc); err != nil {
		return Result{}, pc, err
	}
	if pc, err = typeConstantArgs(pc); err != nil {
		return Result{}, pc, err
	}
	if pc, err = s.rewriteGo(pc); err != nil {
		return Result{}, pc, err
	}
	if s.runMode {
		renameMain(pc)
	}
	redefined, same := s.redefinitions(pc)
	if len(redefined) > 0 {
		res, err := s.replay(ctx, pc, redefined)
		return res, pc, err
	}
	res, err := s.run(ctx, s.in, pc, nil, nil)
	if err != nil {
		return Result{}, pc, err
	}
	s.commit(pc, same)
	return res, pc, nil
}

// commit records a cell that ran, marking the declarations it replaced.
func (s *Session) commit(pc *parsedCell, replaced map[declKey]bool) {
	for _, r := range s.history {
		for i, c := range r.cell.chunks {
			for _, k := range c.keys {
				if replaced[k] {
					r.dropped[i] = true
				}
			}
		}
	}
	s.history = append(s.history, &record{cell: pc, dropped: map[int]bool{}})
	s.in.types = nil
}

// run evaluates a parsed cell in w, leaving out the chunks in skip.
// extra are declarations of other cells evaluated with pc's (see plan).
func (s *Session) run(ctx context.Context, w *world, pc *parsedCell, skip map[int]bool, extra []placed) (Result, error) {
	s.current = pc
	defer func() { s.current = nil }()
	keep := func(kind chunkKind) func(c chunk) bool {
		return func(c chunk) bool { return c.kind == kind && !skip[c.index] }
	}
	// Imports, written ones first, then the packages the cell uses by name.
	for _, d := range pc.decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT || skip[pc.chunkAt(gd.Pos())] {
			continue
		}
		for _, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			path, _ := strconv.Unquote(is.Path.Value)
			name := ""
			if is.Name != nil {
				name = is.Name.Name
			}
			if err := w.importPath(name, path); err != nil {
				pos := pc.fset.Position(is.Pos())
				return Result{}, &CompileError{Line: pos.Line - 1, Col: pos.Column, Msg: stripPos(err.Error())}
			}
		}
	}
	for _, name := range s.usedPackages(w, pc) {
		if err := w.importPath("", stdPackages[name]); err != nil {
			return Result{}, err
		}
	}
	for _, e := range extra {
		if err := s.importAll(w, e.cell); err != nil {
			return Result{}, err
		}
	}
	isDecl := func(c chunk) bool { return (c.kind == chunkType || c.kind == chunkFunc) && !skip[c.index] }
	if anyChunk(pc.chunks, isDecl) || len(extra) > 0 {
		text := "\n" + blank(pc.src, pc.chunks, isDecl)
		for _, e := range extra {
			c := e.cell.chunks[e.idx]
			text += "\n" + e.cell.src[c.start:c.end]
		}
		if _, err := w.eval(ctx, text); err != nil {
			return Result{}, cellRuntimeError(err, pc.src)
		}
	}
	isStmt := keep(chunkStmt)
	if !anyChunk(pc.chunks, isStmt) {
		return Result{}, nil
	}
	var final ast.Expr
	if pc.hasVal && !skip[len(pc.chunks)-1] {
		final = pc.stmts[len(pc.stmts)-1].(*ast.ExprStmt).X
	}
	n := -1
	last := len(pc.chunks) - 1
	before := func(c chunk) bool { return isStmt(c) && c.index != last }
	ranBefore := false
	runBefore := func() error {
		if ranBefore || !anyChunk(pc.chunks, before) {
			return nil
		}
		ranBefore = true
		if _, err := evalStmts(ctx, w, pc, before); err != nil {
			return err
		}
		return nil
	}
	if call, ok := final.(*ast.CallExpr); ok {
		n = s.resultCount(w, call)
		if n < 0 && anyChunk(pc.chunks, before) {
			// The call's receiver may be declared earlier in this cell:
			// run those statements, then look again.
			if err := runBefore(); err != nil {
				return Result{}, err
			}
			n = s.resultCount(w, call)
		}
	}
	if n > 1 {
		// Evaluate the statements before the call, then capture all its results.
		if err := runBefore(); err != nil {
			return Result{}, err
		}
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("__hgv%d", i)
		}
		text := ";" + strings.Join(names, ", ") + " :=\n" + blank(pc.src, pc.chunks, func(c chunk) bool { return c.index == last })
		if _, err := w.eval(ctx, text); err != nil {
			return Result{}, cellRuntimeError(err, pc.src)
		}
		var vals []any
		var texts []string
		for _, name := range names {
			v, err := w.eval(ctx, name)
			if err != nil {
				return Result{}, err
			}
			vals = append(vals, valueOf(v))
			texts = append(texts, display(v))
		}
		return Result{Value: reflect.ValueOf(vals), HasValue: true, Text: strings.Join(texts, "\n")}, nil
	}
	rest := isStmt
	if ranBefore {
		rest = func(c chunk) bool { return c.index == last }
	}
	v, err := evalStmts(ctx, w, pc, rest)
	if err != nil {
		return Result{}, err
	}
	if final == nil || n == 0 || !v.IsValid() {
		return Result{}, nil
	}
	if n < 0 {
		if _, ok := final.(*ast.CallExpr); ok && v.Type() == reflect.TypeOf((*any)(nil)) {
			return Result{}, nil // nothing came back: a leftover of the interpreter
		}
	}
	if _, ok := final.(*ast.CallExpr); ok && isNilError(v) {
		return Result{}, nil // a call that returned no error
	}
	return Result{Value: v, HasValue: true, Text: display(v)}, nil
}

// evalStmts runs the cell's kept statement chunks (see wrapStmts) and
// returns the value of the last one; errors come with cell positions.
func evalStmts(ctx context.Context, w *world, pc *parsedCell, keep func(chunk) bool) (reflect.Value, error) {
	const header = ";\n"
	text, ins := wrapStmts(pc, header+blank(pc.src, pc.chunks, keep), len(header))
	v, err := w.eval(ctx, text)
	if err != nil {
		return v, cellRuntimeError(unwrapError(err, text, ins), pc.src)
	}
	return v, nil
}

func valueOf(v reflect.Value) any {
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	return v.Interface()
}

func isNilError(v reflect.Value) bool {
	errType := reflect.TypeOf((*error)(nil)).Elem()
	if v.Type() != errType && !(v.Kind() == reflect.Interface && v.Type().Implements(errType)) {
		return false
	}
	return v.IsNil()
}

var posRE = regexp.MustCompile(`^(?:[^\s:]*\.go:)?(\d+):(\d+): `)

// cellRuntimeError maps the positions of an interpreter error to the
// cell's lines (the text handed over had one header line).
func cellRuntimeError(err error, src string) error {
	if passThrough(err) {
		return err
	}
	msg := err.Error()
	m := posRE.FindStringSubmatch(msg)
	if m == nil {
		return &CompileError{Msg: msg}
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	return clampError(line-1, col, strings.TrimSpace(msg[len(m[0]):]), src)
}

func stripPos(msg string) string {
	if m := posRE.FindStringSubmatch(msg); m != nil {
		return msg[len(m[0]):]
	}
	return msg
}

// Lookup returns the value of a variable or constant of the session.
func (s *Session) Lookup(name string) (reflect.Value, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lookup(s.in, name)
}

func (s *Session) lookup(w *world, name string) (reflect.Value, bool) {
	if !token.IsIdentifier(name) {
		return reflect.Value{}, false
	}
	if _, ok := w.in.Globals()[name]; !ok {
		return reflect.Value{}, false
	}
	v, err := w.eval(context.Background(), name)
	if err != nil || !v.IsValid() {
		return reflect.Value{}, false
	}
	return v, true
}

// Vars lists the session's variables and constants, by name.
func (s *Session) Vars() []Var {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Var
	for name := range s.in.in.Globals() {
		if hidden[name] || strings.HasPrefix(name, "__hg") || name == "_" {
			continue
		}
		v, ok := s.lookup(s.in, name)
		if !ok {
			continue
		}
		out = append(out, Var{Name: name, Type: s.typeString(s.in, v.Type()), Summary: summary(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Cells returns the cells that ran without error, in order, without the
// declarations that later cells replaced: a program that rebuilds the
// session.
func (s *Session) Cells() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	pl := s.plan(nil)
	for i, r := range s.history {
		if len(pl.skip[i]) == 0 && len(pl.extra[i]) == 0 {
			out = append(out, r.cell.src)
			continue
		}
		var parts []string
		emitted := map[placed]bool{}
		for j, c := range r.cell.chunks {
			if !pl.skip[i][j] {
				parts = append(parts, r.cell.src[c.start:c.end])
				continue
			}
			// A replaced declaration: its latest version goes here.
			for _, e := range pl.extra[i] {
				if !emitted[e] && sharesKey(c, e.cell.chunks[e.idx]) {
					emitted[e] = true
					ec := e.cell.chunks[e.idx]
					parts = append(parts, e.cell.src[ec.start:ec.end])
				}
			}
		}
		for _, e := range pl.extra[i] {
			if !emitted[e] {
				ec := e.cell.chunks[e.idx]
				parts = append(parts, e.cell.src[ec.start:ec.end])
			}
		}
		if len(parts) > 0 {
			out = append(out, strings.Join(parts, "\n"))
		}
	}
	return out
}

// Reset forgets every cell and starts a fresh interpreter with a fresh
// eager.State, as in a new session.
func (s *Session) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.newWorld()
	if err != nil {
		return err
	}
	s.in, s.history, s.state = w, nil, eager.NewState()
	return nil
}

// typeString names a type the way the cells wrote it: interpreted struct
// types are anonymous to reflect, so their declared names are looked up.
func (s *Session) typeString(w *world, t reflect.Type) string {
	names := s.typeNames(w)
	var prefix string
	for t.Kind() == reflect.Pointer {
		if n, ok := names[t]; ok {
			return prefix + n
		}
		prefix += "*"
		t = t.Elem()
	}
	if n, ok := names[t]; ok {
		return prefix + n
	}
	return prefix + t.String()
}

// typeNames maps the reflect types of the session's declared types to
// their names.
func (s *Session) typeNames(w *world) map[reflect.Type]string {
	if w.types != nil {
		return w.types
	}
	w.types = map[reflect.Type]string{}
	for _, r := range s.history {
		for _, k := range r.cell.keys {
			if k.kind != "type" {
				continue
			}
			v, err := w.eval(context.Background(), "(*"+k.name+")(nil)")
			if err == nil && v.IsValid() && v.Kind() == reflect.Pointer {
				w.types[v.Type().Elem()] = k.name
			}
		}
	}
	return w.types
}

// lockedWriter serializes writes.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// switchWriter forwards to a writer that can be changed (replays are
// silent).
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	w := s.w
	s.mu.Unlock()
	return w.Write(p)
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}

// frameFilter passes the interpreter's stderr through, except the
// "line:col: panic: func(...)" lines it writes while a panic unwinds
// interpreted frames: those are kept for the error, and dropped when the
// panic was recovered.
type frameFilter struct {
	mu      sync.Mutex
	out     io.Writer
	quiet   bool
	partial []byte
	frames  []string
}

var frameRE = regexp.MustCompile(`^(\d+):(\d+): panic: (.*)$`)

func (f *frameFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.partial = append(f.partial, p...)
	for {
		i := strings.IndexByte(string(f.partial), '\n')
		if i < 0 {
			break
		}
		line := string(f.partial[:i])
		f.partial = f.partial[i+1:]
		if m := frameRE.FindStringSubmatch(line); m != nil {
			l, _ := strconv.Atoi(m[1])
			f.frames = append(f.frames, fmt.Sprintf("%d:%s: %s", max(l-1, 1), m[2], strings.TrimPrefix(m[3], "main.")))
			continue
		}
		if !f.quiet {
			f.out.Write([]byte(line + "\n"))
		}
	}
	return len(p), nil
}

func (f *frameFilter) begin() {
	f.mu.Lock()
	f.frames = nil
	f.mu.Unlock()
}

// end flushes a partial line and returns the frames seen since begin.
func (f *frameFilter) end() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.partial) > 0 && !f.quiet {
		f.out.Write(f.partial)
	}
	f.partial = nil
	fr := f.frames
	f.frames = nil
	return fr
}

func (f *frameFilter) setQuiet(q bool) {
	f.mu.Lock()
	f.quiet = q
	f.mu.Unlock()
}
