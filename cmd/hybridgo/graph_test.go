package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// saveLeNet writes the tutorial's LeNet as a symbol file; with shapes
// false its data input has no shape, as in files saved without one.
func saveLeNet(t *testing.T, shapes bool) string {
	t.Helper()
	tr := graph.NewTracer()
	F := tr.F()
	v := func(name string) ops.Tensor { return graph.Var(name, nil, ops.Unknown) }
	var data ops.Tensor = graph.Var("data", nil, ops.Unknown)
	if shapes {
		data = graph.Var("data", ops.Shape{8, 1, 28, 28}, ops.Float32)
	}
	pool := func(x ops.Tensor) ops.Tensor {
		return F.Pooling(x, []int{2, 2}, "max", ops.Attr{Name: "stride", Value: []int{2, 2}})
	}
	x := pool(F.Relu(F.Convolution(data, v("conv0_weight"), v("conv0_bias"), []int{5, 5}, 6)))
	x = pool(F.Relu(F.Convolution(x, v("conv1_weight"), v("conv1_bias"), []int{5, 5}, 16)))
	x = F.Relu(F.FullyConnected(F.Reshape(x, 0, -1), v("dense0_weight"), v("dense0_bias"), 120))
	x = F.Relu(F.FullyConnected(x, v("dense1_weight"), v("dense1_bias"), 84))
	y := F.FullyConnected(x, v("dense2_weight"), v("dense2_bias"), 10)
	path := filepath.Join(t.TempDir(), "lenet-symbol.json")
	if err := mxnet.SaveSymbol(path, y.(*graph.Symbol)); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestGraphSVG(t *testing.T) {
	sym := saveLeNet(t, true)
	out := filepath.Join(t.TempDir(), "lenet.svg")
	code, stdout, stderr := runCmd("graph", sym, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "wrote "+out) {
		t.Errorf("stdout %q", stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.HasPrefix(s, "<svg ") || strings.Count(s, `<rect class="node"`) != 23 || !strings.Contains(s, "8x6x24x24") {
		t.Errorf("SVG: %.300s", s)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestGraphText(t *testing.T) {
	sym := saveLeNet(t, false)
	code, stdout, stderr := runCmd("graph", "-width", "80", sym)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "convolution0 Convolution") || !strings.Contains(stdout, "?") || !strings.Contains(stdout, "▼") {
		t.Errorf("drawing:\n%s", stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if len([]rune(line)) > 80 {
			t.Fatalf("line wider than 80: %q", line)
		}
	}
	out := filepath.Join(t.TempDir(), "lenet.txt")
	if code, _, stderr := runCmd("graph", sym, "-o", out, "-width", "120"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if data, _ := os.ReadFile(out); !strings.Contains(string(data), "┌") {
		t.Errorf("text file:\n%s", data)
	}
}

func TestGraphPasses(t *testing.T) {
	sym := saveLeNet(t, true)
	code, stdout, stderr := runCmd("graph", sym, "-passes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "before:\n") || strings.Count(stdout, "fullyconnected2 FullyConnected") != 2 ||
		!strings.Contains(stdout, "\nafter:\n") || !strings.Contains(stdout, "after: ") || !strings.Contains(stdout, "memory plan: ") {
		t.Errorf("report:\n%s", stdout)
	}
	out := filepath.Join(t.TempDir(), "passes.svg")
	if code, _, stderr := runCmd("graph", sym, "-passes", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if data, _ := os.ReadFile(out); !strings.Contains(string(data), ">before</text>") {
		t.Errorf("pass view: %.300s", data)
	}
}

func TestGraphErrors(t *testing.T) {
	sym := saveLeNet(t, true)
	if code, _, stderr := runCmd("graph", sym, "-o", "x.html", "-passes"); code != 2 || !strings.Contains(stderr, "-passes draws .svg or text") {
		t.Errorf("html: exit %d, %q", code, stderr)
	}
	for _, out := range []string{"g.png", "g"} {
		out = filepath.Join(t.TempDir(), out)
		if code, _, stderr := runCmd("graph", sym, "-o", out); code != 2 || !strings.Contains(stderr, "use .svg, .html or .txt") {
			t.Errorf("-o %s: exit %d, %q", out, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("-o %s was written", out)
		}
	}
	if code, _, _ := runCmd("graph"); code != 2 {
		t.Errorf("no file: exit %d", code)
	}
	if code, _, stderr := runCmd("graph", filepath.Join(t.TempDir(), "missing.json")); code != 1 || !strings.Contains(stderr, "load symbol") {
		t.Errorf("missing file: exit %d, %q", code, stderr)
	}
}

func TestGraphHTML(t *testing.T) {
	sym := saveLeNet(t, true)
	out := filepath.Join(t.TempDir(), "lenet.html")
	code, stdout, stderr := runCmd("graph", sym, "-o", out, "-assets", "/opt/echarts")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil || !strings.Contains(stdout, "wrote "+out) {
		t.Fatalf("%v %q", err, stdout)
	}
	for _, want := range []string{"file:///opt/echarts/echarts.min.js", "Convolution", "FullyConnected"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
