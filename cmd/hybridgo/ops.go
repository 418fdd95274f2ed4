package main

import (
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/ops"
)

// runOps prints the op registry: a table of every op, or the full
// description of the ops named.
func runOps(names []string, stdout, stderr io.Writer) int {
	if len(names) == 1 && (names[0] == "-onnx" || names[0] == "--onnx") {
		list := onnx.ImportOps()
		fmt.Fprintf(stdout, "%d ONNX operators convert to the registry's (nn.ImportONNX, `hybridgo convert MODEL.onnx`)\n\n", len(list))
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ONNX\tBECOMES")
		for _, name := range list {
			m, _ := onnx.ImportMapping(name)
			fmt.Fprintf(tw, "%s\t%s\n", name, m)
		}
		tw.Flush()
		return 0
	}
	if len(names) == 1 && (names[0] == "-unsupported" || names[0] == "--unsupported") {
		list := unsupportedMXNetOps()
		fmt.Fprintf(stdout, "%d operators of MXNet 1.9 (gradients and internal ones left out) that hybridgo does not support yet:\n\n", len(list))
		for _, name := range list {
			fmt.Fprintln(stdout, name)
		}
		return 0
	}
	if len(names) == 0 {
		all := ops.All()
		fmt.Fprintf(stdout, "%d operators (MXNet names; `hybridgo ops NAME` describes one, `hybridgo ops -onnx` lists the ONNX ops that import, "+
			"`hybridgo ops -unsupported` MXNet's that are missing)\n\n", len(all))
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tINPUTS\tATTRIBUTES (default)")
		for _, op := range all {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", op.Name(), strings.Join(inputNames(op), ", "), attrSummary(op))
		}
		tw.Flush()
		return 0
	}
	code := 0
	for i, name := range names {
		op, ok := ops.Lookup(name)
		if !ok {
			if f, ok := eagerOnly[name]; ok {
				fmt.Fprintf(stderr, "hybridgo ops: MXNet's %s runs here only eagerly, as %s: its result's shape depends on its input's values, so it cannot be in a graph\n", name, f)
			} else if isMXNetOp(name) {
				fmt.Fprintf(stderr, "hybridgo ops: MXNet 1.9 has an operator named %q, but hybridgo does not support it yet%s\n", name, suggest(name))
			} else {
				fmt.Fprintf(stderr, "hybridgo ops: no operator named %q%s\n", name, suggest(name))
			}
			code = 1
			continue
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		describe(stdout, op)
	}
	return code
}

// mxnetOpsFile lists the operator names of MXNet 1.9 (see its header).
//
//go:embed mxnet_ops.txt
var mxnetOpsFile string

var mxnetOps = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, line := range strings.Split(mxnetOpsFile, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			names[line] = true
		}
	}
	return names
})

// eagerOnly names the F methods of MXNet operators that run only eagerly
// and so are not in the registry.
var eagerOnly = map[string]string{"_contrib_boolean_mask": "F.BooleanMask", "_npi_boolean_mask": "F.BooleanMask"}

// isMXNetOp reports whether MXNet 1.9 has an operator of that name.
func isMXNetOp(name string) bool { return mxnetOps()[name] }

// unsupportedMXNetOps lists, sorted, the names of MXNet 1.9's operators
// that no registered op answers to, leaving out gradients (_backward_…)
// and the internals of MXNet's engine and numpy front end (_npi_…).
func unsupportedMXNetOps() []string {
	var list []string
	for name := range mxnetOps() {
		if _, ok := ops.Lookup(name); ok {
			continue
		}
		if strings.HasPrefix(name, "_backward_") || strings.HasPrefix(name, "_npi_") || strings.HasPrefix(name, "_np_") ||
			strings.HasPrefix(name, "_npx_") || strings.HasPrefix(name, "_sg_") {
			continue
		}
		list = append(list, name)
	}
	slices.Sort(list)
	return list
}

// inputNames names the op's inputs with its default attributes.
func inputNames(op *ops.Op) []string {
	names := op.InputNames(op.DefaultAttrs())
	if len(names) == 0 {
		return []string{"-"}
	}
	return names
}

func attrSummary(op *ops.Op) string {
	var parts []string
	for _, a := range op.AttrInfos() {
		if a.Required {
			parts = append(parts, a.Name)
		} else {
			def := a.Default
			if def == "" {
				def = `""`
			}
			parts = append(parts, fmt.Sprintf("%s(%s)", a.Name, def))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func describe(w io.Writer, op *ops.Op) {
	fmt.Fprintf(w, "%s\n", op.Name())
	if al := op.Aliases(); len(al) > 0 {
		fmt.Fprintf(w, "  aliases: %s\n", strings.Join(al, ", "))
	}
	fmt.Fprintf(w, "  %s\n", op.Doc())
	fmt.Fprintf(w, "  inputs: %s\n", strings.Join(inputNames(op), ", "))
	if aux := op.AuxInputs(); len(aux) > 0 {
		fmt.Fprintf(w, "  auxiliary states (updated in place): inputs %v\n", aux)
	}
	grad := "yes"
	switch {
	case !op.Differentiable():
		grad = "no rule (differentiating through it is an error)"
	case !op.HasGradRule():
		grad = "zero everywhere"
	}
	fmt.Fprintf(w, "  gradient: %s\n", grad)
	export := "no export (`hybridgo convert` refuses it)"
	if m, ok := onnx.Mapping(op.Name()); ok {
		export = m
	}
	fmt.Fprintf(w, "  ONNX: %s\n", export)
	infos := op.AttrInfos()
	if len(infos) == 0 {
		fmt.Fprintln(w, "  attributes: none")
		return
	}
	fmt.Fprintln(w, "  attributes:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, a := range infos {
		def := "required"
		if !a.Required {
			def = "default " + a.Default
		}
		typ := a.Type
		if len(a.Enum) > 0 {
			typ = strings.Join(a.Enum, "|")
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", a.Name, typ, def, a.Doc)
	}
	tw.Flush()
}

// suggest names registered ops that contain the name, to catch near misses.
func suggest(name string) string {
	var close []string
	lower := strings.ToLower(name)
	for _, op := range ops.All() {
		if strings.Contains(strings.ToLower(op.Name()), lower) {
			close = append(close, op.Name())
		}
	}
	if len(close) == 0 || len(close) > 8 {
		return " (run `hybridgo ops` for the list)"
	}
	return "; did you mean " + strings.Join(close, ", ") + "?"
}
