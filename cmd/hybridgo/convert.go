package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/ops"
)

// runConvert converts an MXNet symbol file and params file to ONNX, or an
// ONNX model to MXNet's files.
func runConvert(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hybridgo convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the .onnx file to write (default: the symbol file's prefix with .onnx)")
	opset := fs.Int("opset", onnx.DefaultOpset, fmt.Sprintf("the ONNX operator set, %d to %d", onnx.DefaultOpset, onnx.MaxOpset))
	static := fs.Bool("static-batch", false, "write the batch dim as the number given by -shape instead of the symbolic N")
	shapes := map[string]ops.Shape{}
	fs.Func("shape", "an input's shape, NAME=D1,D2,… (repeatable), for inputs the symbol file leaves unshaped, e.g. data=1,1,28,28", func(s string) error {
		name, dims, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return fmt.Errorf("want NAME=D1,D2,…, got %q", s)
		}
		var shape ops.Shape
		for _, d := range strings.Split(dims, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(d))
			if err != nil || n <= 0 {
				return fmt.Errorf("dim %q of %s is not a positive number", d, name)
			}
			shape = append(shape, n)
		}
		shapes[name] = shape
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: hybridgo convert MODEL-symbol.json [MODEL-0000.params] [-o MODEL.onnx] [flags]\n"+
			"       hybridgo convert MODEL.onnx [-o PREFIX]\n\n"+
			"Converts an MXNet model (the files Export and Gluon's export write) to ONNX,\n"+
			"with a dynamic batch. Without a params file the parameters are inputs of the\n"+
			"model. `hybridgo ops NAME` says what an op becomes in ONNX.\n\n"+
			"Given a .onnx file, converts it the other way: to PREFIX-symbol.json and\n"+
			"PREFIX-0000.params (PREFIX defaults to the model's path without .onnx), which\n"+
			"MXNet and nn.SymbolBlockImports load. `hybridgo ops -onnx` lists the ONNX ops\n"+
			"that convert.\n\nFlags:")
		fs.PrintDefaults()
	}
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(files) < 1 || len(files) > 2 {
		fs.Usage()
		return 2
	}
	if strings.HasSuffix(files[0], ".onnx") {
		if len(files) != 1 {
			fs.Usage()
			return 2
		}
		return convertONNX(files[0], *out, stdout, stderr)
	}
	sym, err := mxnet.LoadSymbol(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo convert: %v\n", err)
		return 1
	}
	params := map[string]*eager.NDArray{}
	if len(files) == 2 {
		list, err := mxnet.LoadParams(files[1])
		if err != nil {
			fmt.Fprintf(stderr, "hybridgo convert: %v\n", err)
			return 1
		}
		for _, a := range list {
			name := strings.TrimPrefix(strings.TrimPrefix(a.Name, "arg:"), "aux:")
			if _, dup := params[name]; dup {
				fmt.Fprintf(stderr, "hybridgo convert: %s: the array %q appears twice\n", files[1], name)
				return 1
			}
			params[name] = a.Array
		}
	}
	path := *out
	if path == "" {
		path = strings.TrimSuffix(strings.TrimSuffix(files[0], ".json"), "-symbol") + ".onnx"
	}
	opts := onnx.Options{Opset: *opset, InputShapes: shapes, StaticBatch: *static}
	if err := onnx.SaveModel(path, sym, params, opts); err != nil {
		fmt.Fprintf(stderr, "hybridgo convert: %v\n", err)
		if strings.Contains(err.Error(), "InputShapes") {
			fmt.Fprintln(stderr, "(give the input's shape with -shape, e.g. -shape data=1,3,224,224)")
		}
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (ONNX opset %d)\n", path, *opset)
	return 0
}

// convertONNX converts an ONNX model to MXNet's symbol and params files.
func convertONNX(path, prefix string, stdout, stderr io.Writer) int {
	m, err := onnx.LoadModel(path)
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo convert: %v\n", err)
		return 1
	}
	im, err := onnx.Import(m)
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo convert: %s: %v\n", path, err)
		return 1
	}
	if prefix == "" {
		prefix = strings.TrimSuffix(path, ".onnx")
	}
	if err := mxnet.SaveCheckpoint(prefix, 0, im.Symbol, im.Params); err != nil {
		fmt.Fprintf(stderr, "hybridgo convert: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s and %s (inputs: %s)\n", prefix+"-symbol.json", mxnet.ParamsFile(prefix, 0), strings.Join(im.Inputs, ", "))
	return 0
}
