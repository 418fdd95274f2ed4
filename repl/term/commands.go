package term

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/repl"
	"github.com/hybridgo/hybridgo/viz"
)

// Command is one parsed REPL command: ":graph net out.svg" has Name
// "graph", Args ["net", "out.svg"] and Rest "net out.svg".
type Command struct {
	Name string
	Args []string
	Rest string // everything after the name, trimmed (":time"'s expression)
}

// ParseCommand parses a line that starts with ':' (after blanks). It
// reports false for anything else, which is Go.
func ParseCommand(line string) (Command, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, ":") || strings.HasPrefix(t, ":=") {
		return Command{}, false
	}
	t = t[1:]
	name, rest, _ := strings.Cut(t, " ")
	if i := strings.IndexAny(name, "\t"); i >= 0 {
		name, rest = name[:i], name[i+1:]+" "+rest
	}
	rest = strings.TrimSpace(rest)
	return Command{Name: name, Args: strings.Fields(rest), Rest: rest}, true
}

// commandSpec describes a command for :help and runs it.
type commandSpec struct {
	name, usage, help string
	run               func(r *REPL, c Command) (quit bool)
}

// commands lists the REPL's commands in the order :help shows them.
var commands []commandSpec

func init() {
	commands = []commandSpec{
		{"help", ":help", "this list", (*REPL).cmdHelp},
		{"graph", ":graph NAME [FILE.svg|FILE.html|FILE.txt]", "draw a Symbol, or a hybridized block's traced graph, here or to a file", (*REPL).cmdGraph},
		{"trace", ":trace on|off", "print each op as a hybridized block traces it", (*REPL).cmdTrace},
		{"time", ":time EXPR", "run EXPR repeatedly for about a second and print the median time per run", (*REPL).cmdTime},
		{"profile", ":profile EXPR", "profile EXPR op by op; for a block's net.Forward(x), eagerly and hybridized side by side", (*REPL).cmdProfile},
		{"load", ":load FILE.go", "evaluate a Go file (its declarations, then main's body)", (*REPL).cmdLoad},
		{"save", ":save FILE.go", "write the session's cells as a Go file", (*REPL).cmdSave},
		{"reset", ":reset", "forget every variable, type and function", (*REPL).cmdReset},
		{"restart", ":restart [-no-replay]", "start a new worker process and run the session's cells in it again (-no-replay: start empty)", (*REPL).cmdRestart},
		{"doc", ":doc NAME", "show the documentation of a name (nn.Dense, net.Forward, x)", (*REPL).cmdDoc},
		{"vars", ":vars", "list the variables with their types and values", (*REPL).cmdVars},
		{"quit", ":quit", "leave (Ctrl-D on an empty line does too)", func(*REPL, Command) bool { return true }},
	}
}

// lookupCommand finds a command by its name.
func lookupCommand(name string) (commandSpec, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return commandSpec{}, false
}

// commandNames lists the commands as ":help, :graph, …".
func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = ":" + c.name
	}
	return strings.Join(names, " ")
}

// command runs a parsed command, printing its errors.
func (r *REPL) command(c Command) (quit bool) {
	spec, ok := lookupCommand(c.Name)
	if !ok {
		if c.Name == "" {
			fmt.Fprintf(r.errOut, "error: a command name must follow ':'; the commands are %s\n", commandNames())
		} else {
			fmt.Fprintf(r.errOut, "error: unknown command :%s; the commands are %s (:help explains them)\n", c.Name, commandNames())
		}
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(r.errOut, "panic in :%s: %v\n", c.Name, p)
			quit = false
		}
	}()
	return spec.run(r, c)
}

// usageError prints how a command is used.
func (r *REPL) usageError(name, problem string) bool {
	spec, _ := lookupCommand(name)
	fmt.Fprintf(r.errOut, "error: %s; usage: %s\n", problem, spec.usage)
	return false
}

func (r *REPL) cmdHelp(Command) bool {
	names := slices.Sorted(maps.Keys(repl.PreImports()))
	fmt.Fprintf(r.out, "Type Go statements and declarations; %s are imported (nd: eager arrays, sym: symbols),\nand any other standard package the first time a cell names it.\n", strings.Join(names, ", "))
	fmt.Fprintln(r.out, "An expression's value is printed. Commands:")
	tw := tabwriter.NewWriter(r.out, 0, 4, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.usage, c.help)
	}
	tw.Flush()
	fmt.Fprintln(r.out, "Keys: Tab completes, Ctrl-C discards the input or interrupts a running cell, Ctrl-R searches the history, Ctrl-D quits.")
	return false
}

func (r *REPL) cmdGraph(c Command) bool {
	if len(c.Args) < 1 || len(c.Args) > 2 {
		return r.usageError("graph", "give a name, and optionally a file")
	}
	sym, err := r.graphOf(c.Args[0])
	if err != nil {
		fmt.Fprintln(r.errOut, "error:", err)
		return false
	}
	if len(c.Args) == 1 {
		fmt.Fprint(r.out, ensureNewline(drawText(sym, screenWidth())))
		return false
	}
	file := c.Args[1]
	data, err := drawFile(sym, file, c.Args[0])
	if err != nil {
		fmt.Fprintln(r.errOut, "error:", err)
		return false
	}
	if err := viz.WriteFile(file, data); err != nil {
		fmt.Fprintln(r.errOut, "error:", err)
		return false
	}
	fmt.Fprintf(r.out, "wrote %s (%d bytes)\n", file, len(data))
	return false
}

func ensureNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

// graphOf finds the graph a name stands for: a Symbol, or the last traced
// graph of a hybridized block (compiled, or defined in the session), or a
// SymbolBlock's graph.
func (r *REPL) graphOf(name string) (*graph.Symbol, error) {
	v, ok := r.s.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%s is not defined", name)
	}
	for v.IsValid() && v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return nil, fmt.Errorf("%s is nil", name)
	}
	if v.CanInterface() {
		switch x := v.Interface().(type) {
		case *graph.Symbol:
			return x, nil
		case interface{ Graph() *graph.Symbol }:
			return x.Graph(), nil
		}
	}
	var hb *nn.HybridBlock
	if v.CanInterface() {
		hb = nn.HybridBlockOf(v.Interface())
	}
	if hb == nil {
		return nil, fmt.Errorf("%s is a %s: :graph draws a Symbol or a hybrid block", name, v.Type())
	}
	if g := hb.LastGraph(); g != nil {
		return g, nil
	}
	if !hb.Hybridized() {
		return nil, fmt.Errorf("%s is not hybridized: call %s.Hybridize() and run %s.Forward(x) once to trace its graph", name, name, name)
	}
	return nil, fmt.Errorf("%s has not run since Hybridize: run %s.Forward(x) once to trace its graph", name, name)
}

func (r *REPL) cmdTrace(c Command) bool {
	if len(c.Args) != 1 || (c.Args[0] != "on" && c.Args[0] != "off") {
		return r.usageError("trace", "say on or off")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.Args[0] == "off" {
		if r.tracing {
			r.s.InState(func() { graph.SetTraceObserver(nil) })
			r.tracing = false
		}
		fmt.Fprintln(r.out, "tracing is off")
		return false
	}
	out := r.out
	r.s.InState(func() { graph.SetTraceObserver(func(n *graph.Node) { fmt.Fprintln(out, TraceLine(n)) }) })
	r.tracing = true
	fmt.Fprintln(r.out, "tracing is on: each op is printed as a hybridized block traces it (its first call after Hybridize)")
	return false
}

// TraceLine describes a traced op node on one line:
// "trace: net0_conv0_fwd = Convolution(data, net0_conv0_weight, net0_conv0_bias) -> 16x6x24x24 float32".
func TraceLine(n *graph.Node) string {
	args := make([]string, len(n.Inputs))
	for i, in := range n.Inputs {
		args[i] = in.Node.Name
		if in.Node.NumOutputs() > 1 {
			args[i] += "." + strconv.Itoa(in.Index)
		}
	}
	shapes := make([]string, len(n.Shapes))
	for i := range n.Shapes {
		shapes[i] = graph.ShapeString(n.Shapes[i], n.DTypes[i])
	}
	return fmt.Sprintf("trace: %s = %s(%s) -> %s", n.Name, n.Op.Name(), strings.Join(args, ", "), strings.Join(shapes, ", "))
}

// timeMarker starts the helper cells :time evaluates, so that :save and
// :vars leave them out.
const timeMarker = "__hybridgoTime"

// timeBudget is how long :time runs its expression.
var timeBudget = time.Second

func (r *REPL) cmdTime(c Command) bool {
	if c.Rest == "" {
		return r.usageError("time", "give an expression")
	}
	// The loop runs in the interpreter, so that the time is the
	// expression's and not a cell's compilation.
	var fn reflect.Value
	var lastErr error
	for _, body := range []string{"_ = " + c.Rest, c.Rest} {
		cell := fmt.Sprintf("%s := func(n int) {\n\tfor i := 0; i < n; i++ {\n\t\t%s\n\t}\n}", timeMarker, body)
		if _, err := r.eval(context.Background(), cell); err != nil {
			lastErr = err
			continue
		}
		if v, ok := r.s.Lookup(timeMarker); ok && v.Kind() == reflect.Func {
			fn, lastErr = v, nil
			break
		}
	}
	if !fn.IsValid() {
		if lastErr == nil {
			lastErr = fmt.Errorf("could not build the timing loop")
		}
		r.printError(lastErr)
		return false
	}
	var st timing
	var err error
	r.run(func(ctx context.Context) { st, err = measure(ctx, fn, timeBudget) })
	if err != nil {
		r.printError(err)
		return false
	}
	fmt.Fprintf(r.out, "%s per run (median of %d; min %s, max %s)\n", formatDuration(st.median), st.samples, formatDuration(st.min), formatDuration(st.max))
	return false
}

// modesCell profiles a call of a block (%[2]s) in both modes, or once
// when the block cannot hybridize, into the variable %[1]s. The block
// goes through profiler.HybridizableOf, so that one defined in a cell
// works too.
const modesCell = `%[1]s := ""
if h := profiler.HybridizableOf(%[2]s); h != nil {
	%[1]s = profiler.Modes(h, profiler.DefaultRuns, func() {
		%[3]s
	}).String()
} else {
	%[1]s = profiler.Run(func() {
		%[3]s
	}).String()
}`

// cmdProfile profiles EXPR with package profiler, in a helper cell so
// that it runs where cells run. A call of a block's Forward or ForwardN
// runs in both modes (profiler.Modes); any other expression (or a block
// that cannot hybridize) once, in the mode it is in.
func (r *REPL) cmdProfile(c Command) bool {
	if c.Rest == "" {
		return r.usageError("profile", "give an expression, such as net.Forward(x)")
	}
	name := timeMarker + "Profile"
	var cells []string
	for _, body := range []string{"_ = " + c.Rest, c.Rest} {
		if recv := forwardReceiver(c.Rest); recv != "" {
			cells = append(cells, fmt.Sprintf(modesCell, name, recv, body))
		}
		cells = append(cells, fmt.Sprintf("%s := profiler.Run(func() {\n\t%s\n}).String()", name, body))
	}
	var lastErr error
	for _, cell := range cells {
		// The cell compiles before it runs, so a failed try ran nothing.
		var err error
		r.run(func(ctx context.Context) { _, err = r.eval(ctx, cell) })
		if err != nil {
			lastErr = err
			if errors.Is(err, repl.ErrInterrupted) || errors.Is(err, context.Canceled) || strings.HasPrefix(err.Error(), "panic") {
				break
			}
			continue
		}
		if v, ok := r.s.Lookup(name); ok && v.Kind() == reflect.String {
			io.WriteString(r.out, v.String())
			return false
		}
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("could not profile %s", c.Rest)
	}
	r.printError(lastErr)
	return false
}

// forwardReceiver returns the receiver of expr when expr is a call of its
// Forward or ForwardN method ("net" for "net.Forward(x)"), else "".
func forwardReceiver(expr string) string {
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return ""
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || (sel.Sel.Name != "Forward" && sel.Sel.Name != "ForwardN") {
		return ""
	}
	return expr[sel.X.Pos()-1 : sel.X.End()-1]
}

type timing struct {
	median, min, max time.Duration
	samples          int
}

// measure calls fn(n) (a loop of n runs) in batches for about budget and
// returns the median time per run over the batches. Quick expressions
// run in batches long enough to time; slow ones one run per batch.
func measure(ctx context.Context, fn reflect.Value, budget time.Duration) (st timing, err error) {
	call := func(n int) (d time.Duration, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		start := time.Now()
		fn.Call([]reflect.Value{reflect.ValueOf(n)})
		return time.Since(start), nil
	}
	start := time.Now()
	n := 1
	var per []time.Duration
	// Double the batch until it is long enough to time (or a quarter of
	// the budget is gone), then repeat it until the budget is spent.
	for {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		d, err := call(n)
		if err != nil {
			return st, err
		}
		if d >= time.Millisecond || time.Since(start) > budget/4 || n >= 1<<30 {
			per = append(per, d/time.Duration(n))
			break
		}
		n *= 2
	}
	for time.Since(start) < budget {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		d, err := call(n)
		if err != nil {
			return st, err
		}
		per = append(per, d/time.Duration(n))
	}
	sort.Slice(per, func(i, j int) bool { return per[i] < per[j] })
	return timing{median: per[len(per)/2], min: per[0], max: per[len(per)-1], samples: len(per)}, nil
}

// formatDuration prints a duration with three significant digits.
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%d ns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.3g µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.3g ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3g s", d.Seconds())
}

func (r *REPL) cmdLoad(c Command) bool {
	if len(c.Args) != 1 {
		return r.usageError("load", "give one file")
	}
	abs, err := filepath.Abs(c.Args[0])
	if err != nil {
		fmt.Fprintln(r.errOut, "error:", err)
		return false
	}
	for i, f := range r.loading {
		if f.abs == abs {
			var chain []string
			for _, g := range r.loading[i:] {
				chain = append(chain, g.name)
			}
			chain = append(chain, c.Args[0])
			fmt.Fprintf(r.errOut, "error: %s loads itself (%s)\n", c.Args[0], strings.Join(chain, " -> "))
			return false
		}
	}
	r.loading = append(r.loading, loadingFile{c.Args[0], abs})
	defer func() { r.loading = r.loading[:len(r.loading)-1] }()
	src, err := os.ReadFile(c.Args[0])
	if err != nil {
		fmt.Fprintln(r.errOut, "error:", err)
		return false
	}
	cells, ok := fileCells(string(src))
	if !ok {
		// Not a Go file: statements as typed at the prompt.
		RunBatch(r, strings.NewReader(string(src)))
		return false
	}
	for _, cell := range cells {
		failed := false
		r.run(func(ctx context.Context) {
			res, err := r.eval(ctx, cell)
			if err != nil {
				r.printError(err)
				failed = true
			} else if res.HasValue && res.Text != "" {
				fmt.Fprint(r.out, ensureNewline(res.Text))
			}
		})
		if failed {
			fmt.Fprintf(r.errOut, "%s: stopped at the cell above\n", c.Args[0])
			return false
		}
	}
	fmt.Fprintf(r.out, "loaded %s\n", c.Args[0])
	return false
}

// fileCells cuts a Go file into cells: its imports, each other top-level
// declaration, and the body of func main (so that main's variables
// become the session's). The package clause may be left out. It reports
// false when src does not parse as a Go file.
func fileCells(src string) ([]string, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		src = "package main\n" + src
		if f, err = parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution); err != nil {
			return nil, false
		}
	}
	text := func(from, to token.Pos) string {
		return src[fset.Position(from).Offset:fset.Position(to).Offset]
	}
	var cells []string
	var body string
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" && fd.Body != nil {
			body = strings.TrimSpace(dedent(text(fd.Body.Lbrace+1, fd.Body.Rbrace)))
			continue
		}
		cells = append(cells, text(d.Pos(), d.End()))
	}
	if body != "" {
		cells = append(cells, body)
	}
	return cells, true
}

// dedent removes one leading tab from each line.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(lines, "\n")
}

func (r *REPL) cmdSave(c Command) bool {
	if len(c.Args) != 1 {
		return r.usageError("save", "give one file")
	}
	src := SaveFile(r.s.Cells())
	if err := viz.WriteFile(c.Args[0], []byte(src)); err != nil {
		fmt.Fprintln(r.errOut, "error:", err)
		return false
	}
	fmt.Fprintf(r.out, "saved %s\n", c.Args[0])
	return false
}

// knownImports are the packages a session has imported without being
// asked, by the name cells use for them: those it imports in advance, and
// the standard ones cells use most without importing them.
var knownImports = func() map[string]string {
	m := repl.PreImports()
	m["time"], m["os"] = "time", "os"
	return m
}()

// SaveFile writes cells as one Go file of package main: imports (the
// session's own, for the names the cells use, and the cells' imports),
// declarations at top level in order, and statements in func main in
// order. :load reads it back into the same variables.
func SaveFile(cells []string) string {
	imports := map[string]string{} // name -> path
	var decls, stmts []string
	used := map[string]bool{}
	for _, cell := range cells {
		if strings.HasPrefix(cell, timeMarker) {
			continue
		}
		fset := token.NewFileSet()
		if f, err := parser.ParseFile(fset, "", "package p\n"+cell, parser.ParseComments|parser.SkipObjectResolution); err == nil {
			src := "package p\n" + cell
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
					for _, spec := range g.Specs {
						is := spec.(*ast.ImportSpec)
						path, _ := strconv.Unquote(is.Path.Value)
						name := path[strings.LastIndex(path, "/")+1:]
						if is.Name != nil {
							name = is.Name.Name
						}
						imports[name] = path
					}
					continue
				}
				decls = append(decls, src[fset.Position(d.Pos()).Offset:fset.Position(d.End()).Offset])
			}
			collectUses(f, used)
			continue
		}
		if f, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+cell+"\n}", parser.SkipObjectResolution); err == nil {
			collectUses(f, used)
		}
		stmts = append(stmts, cell)
	}
	for name := range used {
		if _, ok := imports[name]; !ok {
			if path, ok := knownImports[name]; ok {
				imports[name] = path
			}
		}
	}
	var b strings.Builder
	b.WriteString("// Saved from hybridgo's REPL: declarations at top level, statements in main.\n\npackage main\n\n")
	if len(imports) > 0 {
		names := make([]string, 0, len(imports))
		for n := range imports {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return imports[names[i]] < imports[names[j]] })
		b.WriteString("import (\n")
		for _, n := range names {
			p := imports[n]
			if p[strings.LastIndex(p, "/")+1:] == n {
				fmt.Fprintf(&b, "\t%q\n", p)
			} else {
				fmt.Fprintf(&b, "\t%s %q\n", n, p)
			}
		}
		b.WriteString(")\n\n")
	}
	for _, d := range decls {
		b.WriteString(d)
		b.WriteString("\n\n")
	}
	b.WriteString("func main() {\n")
	for _, s := range stmts {
		for _, line := range strings.Split(s, "\n") {
			if line == "" {
				b.WriteString("\n")
			} else {
				b.WriteString("\t" + line + "\n")
			}
		}
	}
	b.WriteString("}\n")
	if out, err := format.Source([]byte(b.String())); err == nil {
		return string(out)
	}
	return b.String()
}

// collectUses records the package-like names used as X in X.Sel.
func collectUses(f *ast.File, used map[string]bool) {
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
}

func (r *REPL) cmdReset(Command) bool {
	if err := r.s.Reset(); err != nil {
		fmt.Fprintln(r.errOut, "error:", err)
		return false
	}
	fmt.Fprintln(r.out, "the session was reset")
	return false
}

// cmdRestart is :restart in a REPL without a worker process (the one in
// the worker, or the tutorial walkthrough's); Main's front end runs it.
func (r *REPL) cmdRestart(Command) bool {
	fmt.Fprintln(r.errOut, "error: :restart restarts the worker process of hybridgo's REPL; this session has none")
	return false
}

func (r *REPL) cmdDoc(c Command) bool {
	if len(c.Args) != 1 {
		return r.usageError("doc", "give one name")
	}
	doc, ok := r.s.Doc(c.Args[0])
	if !ok {
		fmt.Fprintf(r.errOut, "error: no documentation for %s\n", c.Args[0])
		return false
	}
	fmt.Fprint(r.out, ensureNewline(doc))
	return false
}

func (r *REPL) cmdVars(Command) bool {
	tw := tabwriter.NewWriter(r.out, 0, 4, 2, ' ', 0)
	n := 0
	for _, v := range r.s.Vars() {
		if strings.HasPrefix(v.Name, "__") {
			continue
		}
		if n == 0 {
			fmt.Fprintln(tw, "NAME\tTYPE\tVALUE")
		}
		n++
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Name, v.Type, oneLine(v.Summary, 60))
	}
	tw.Flush()
	if n == 0 {
		fmt.Fprintln(r.out, "no variables yet")
	}
	return false
}

// oneLine shortens s to one line of at most width runes.
func oneLine(s string, width int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > width {
		return string(rs[:width-1]) + "…"
	}
	return s
}
