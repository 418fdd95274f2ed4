package nn_test

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/internal/symbols"
	"github.com/hybridgo/hybridgo/nn"
)

// A block typed into an interpreter (as in the REPL) is a block: its
// children and parameters are found, it runs eagerly, after Hybridize it
// is traced once and then runs as a graph without entering the
// interpreted HybridForward again, and it exports to MXNet's files.
func TestBlockDefinedInInterpretedGo(t *testing.T) {
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(symbols.Symbols); err != nil {
		t.Fatal(err)
	}
	cells := []string{
		`import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)`,
		`type Net struct {
	nn.HybridBlock
	Fc1, Fc2 *nn.Dense
	Scale    *nn.Parameter
	calls    int
}`,
		`func (n *Net) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	n.calls++
	fmt.Println(x)
	h := F.Relu(n.Fc1.Forward(x))
	return F.Mul(n.Fc2.Forward(h), nn.Param(F, n.Scale))
}`,
		`eager.Seed(4)
net := &Net{Fc1: nn.NewDense(8), Fc2: nn.NewDense(3), Scale: nn.NewParameter("scale", ops.Shape{1})}
net.Bind(net, "interpnet")
net.Initialize()
x := eager.RandomNormal(2, 4)
y1 := net.Forward(x)
net.Hybridize()
y2 := net.Forward(x)
y3 := net.Forward(x)
names := net.CollectParams().Names()
exportErr := net.Export(prefix, 1)`,
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "interp")
	cells = append([]string{"prefix := " + strconv.Quote(prefix)}, cells...)
	cells[0], cells[1] = cells[1], cells[0] // imports first
	for _, c := range cells {
		if _, err := i.Eval(c); err != nil {
			t.Fatalf("cell %q: %v", c[:min(len(c), 40)], err)
		}
	}
	get := func(name string) any {
		v, err := i.Eval(name)
		if err != nil {
			t.Fatal(err)
		}
		return v.Interface()
	}
	if calls := get("net.calls").(int); calls != 2 {
		t.Errorf("the interpreted HybridForward ran %d times, want 2 (eager, trace)", calls)
	}
	printed := out.String()
	if !strings.Contains(printed, "<NDArray 2x4 @cpu(0)>") || !strings.Contains(printed, "<Symbol data 2x4 float32>") {
		t.Errorf("HybridForward printed:\n%s", printed)
	}
	names := strings.Join(get("names").([]string), " ")
	if names != "interpnet0_scale interpnet0_dense0_weight interpnet0_dense0_bias interpnet0_dense1_weight interpnet0_dense1_bias" {
		t.Errorf("parameters %s", names)
	}
	if err, _ := get("exportErr").(error); err != nil {
		t.Fatalf("export: %v", err)
	}
	imported, err := nn.SymbolBlockImports(prefix+"-symbol.json", []string{"data"}, prefix+"-0001.params")
	if err != nil {
		t.Fatal(err)
	}
	y1, y3 := get("y1").(*eager.NDArray), get("y3").(*eager.NDArray)
	y4 := imported.Forward(get("x").(*eager.NDArray)).(*eager.NDArray)
	if d := optest.FirstDiff(y4.Float64s(), y1.Float64s(), 1e-5, 1e-6); d >= 0 {
		t.Errorf("the exported and re-imported block differs at %d", d)
	}
	if d := optest.FirstDiff(y3.Float64s(), y1.Float64s(), 1e-5, 1e-6); d >= 0 || !y1.Shape().Equal(y3.Shape()) {
		t.Errorf("hybridized output differs from eager at %d", d)
	}
}
