package profiler_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/profiler"
)

// newMLP is a known network: two Dense layers, the first with a relu, in
// a HybridSequential. Eagerly a call runs FullyConnected, Activation,
// FullyConnected; hybridized, the relu fuses into the first layer.
func newMLP(t testing.TB) (*nn.HybridSequential, *eager.NDArray) {
	t.Helper()
	eager.Seed(1)
	net := nn.NewHybridSequential(nn.NewDense(8, nn.DenseOptions{Act: "relu"}), nn.NewDense(3))
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	x := eager.RandomNormal(4, 5)
	net.Forward(x)
	return net, x
}

func counts(p *profiler.Profile) map[string]int {
	m := map[string]int{}
	for _, s := range p.Ops() {
		m[s.Name] = s.Count
	}
	return m
}

func TestCounts(t *testing.T) {
	const runs = 3
	net, x := newMLP(t)
	c := profiler.Modes(net, runs, func() { net.Forward(x) })
	for _, tc := range []struct {
		name string
		p    *profiler.Profile
		want map[string]int
	}{
		{"eager", c.Eager, map[string]int{"FullyConnected": 2 * runs, "Activation": runs}},
		{"hybridized", c.Hybridized, map[string]int{"_fused_FullyConnected_relu": runs, "FullyConnected": runs}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := counts(tc.p)
			if len(got) != len(tc.want) {
				t.Fatalf("ops %v, want %v", got, tc.want)
			}
			for op, n := range tc.want {
				if got[op] != n {
					t.Errorf("%s: %d calls, want %d (all: %v)", op, got[op], n, got)
				}
			}
			if tot := tc.p.Totals(); tot.Calls != runs {
				t.Errorf("%d calls, want %d", tot.Calls, runs)
			}
			table := tc.p.Table()
			for op := range tc.want {
				if !strings.Contains(table, op) {
					t.Errorf("table lacks %s:\n%s", op, table)
				}
			}
		})
	}
	if net.Hybridized() {
		t.Error("Modes left the network hybridized")
	}
	if f := c.Fused(); len(f) != 1 || f[0] != "_fused_FullyConnected_relu" {
		t.Errorf("fused %v", f)
	}
	if h := c.Hybridized.Totals(); h.Planned == 0 || h.Peak == 0 {
		t.Errorf("hybridized totals have no memory plan: %+v", h)
	}
}

func TestNodeNamesAndBlocks(t *testing.T) {
	net, x := newMLP(t)
	c := profiler.Modes(net, 1, func() { net.Forward(x) })
	prefix := net.Name() + "_"
	var blocks []string
	for _, s := range c.Eager.Blocks() {
		blocks = append(blocks, s.Name)
	}
	want := []string{net.Name(), net.Name() + "/dense0", net.Name() + "/dense1"}
	for _, w := range want {
		if !strings.Contains(strings.Join(blocks, " "), w) {
			t.Errorf("eager blocks %v lack %s", blocks, w)
		}
	}
	for i, e := range c.Hybridized.Events {
		if e.Kind != profiler.OpEvent {
			continue
		}
		if !strings.HasPrefix(e.Node, prefix) {
			t.Errorf("hybridized op %s has node name %q, want the prefix %q", e.Name, e.Node, prefix)
		}
		if b := c.Hybridized.Block(i); b != net.Name() {
			t.Errorf("hybridized op %s ran in block %q, want %q", e.Name, b, net.Name())
		}
	}
}

// TestTrace checks the Chrome trace: valid JSON, one complete event per
// op call, and every op inside its block's event on the same track.
func TestTrace(t *testing.T) {
	net, x := newMLP(t)
	c := profiler.Modes(net, 2, func() { net.Forward(x) })
	for _, p := range []*profiler.Profile{c.Eager, c.Hybridized} {
		var buf bytes.Buffer
		if err := p.WriteTrace(&buf); err != nil {
			t.Fatal(err)
		}
		var trace struct {
			TraceEvents []struct {
				Name, Cat, Ph string
				Ts, Dur       float64
				Tid           int64
				Args          map[string]any
			}
		}
		if err := json.Unmarshal(buf.Bytes(), &trace); err != nil {
			t.Fatalf("trace is not JSON: %v", err)
		}
		ops := 0
		for _, e := range trace.TraceEvents {
			if e.Ph != "X" {
				t.Errorf("event %s has phase %q, want X", e.Name, e.Ph)
			}
			if strings.HasPrefix(e.Cat, "block") || e.Cat == "graph" {
				continue
			}
			ops++
			block, _ := e.Args["block"].(string)
			inside := false
			for _, b := range trace.TraceEvents {
				if b.Name == block && strings.HasPrefix(b.Cat, "block") && b.Tid == e.Tid && b.Ts <= e.Ts && e.Ts+e.Dur <= b.Ts+b.Dur {
					inside = true
				}
			}
			if !inside {
				t.Errorf("op %s is not inside an event of its block %q", e.Name, block)
			}
		}
		if want := p.Totals().OpCalls; ops != want {
			t.Errorf("%d op events, want %d", ops, want)
		}
	}
}

func TestStateAndDump(t *testing.T) {
	if err := profiler.SetState("go"); err == nil {
		t.Error("SetState(\"go\") gave no error")
	}
	x := eager.Ones(2, 2)
	profiler.Dumps(true)
	if err := profiler.SetState("run"); err != nil {
		t.Fatal(err)
	}
	eager.F.Relu(x)
	eager.F.Relu(x)
	if err := profiler.SetState("stop"); err != nil {
		t.Fatal(err)
	}
	eager.F.Relu(x) // not recorded
	if got := counts(profiler.Current())["relu"]; got != 2 {
		t.Errorf("recorded %d relu calls, want 2", got)
	}
	file := filepath.Join(t.TempDir(), "trace.json")
	profiler.SetConfig(profiler.Config{Filename: file})
	if err := profiler.Dump(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil || !json.Valid(data) {
		t.Errorf("Dump wrote no valid JSON: %v", err)
	}
	if s := profiler.Dumps(true); !strings.Contains(s, "relu") {
		t.Errorf("Dumps lacks the op:\n%s", s)
	}
	if n := len(profiler.Current().Events); n != 0 {
		t.Errorf("Dumps(true) left %d events", n)
	}
}

// TestOffAllocatesNothing: with profiling off, a LeNet hybridized with
// StaticAlloc still allocates nothing per call, so the hooks in the
// block, the executor and the op loop cost no allocation.
func TestOffAllocatesNothing(t *testing.T) {
	eager.Seed(5)
	x := eager.RandomNormal(16, 1, 28, 28)
	net := nn.NewHybridSequential(
		nn.NewConv2D(6, []int{5}, nn.ConvOptions{Act: "relu"}), nn.NewMaxPool2D([]int{2}),
		nn.NewConv2D(16, []int{5}, nn.ConvOptions{Act: "relu"}), nn.NewMaxPool2D([]int{2}),
		nn.NewDense(120, nn.DenseOptions{Act: "relu"}), nn.NewDense(84, nn.DenseOptions{Act: "relu"}), nn.NewDense(10))
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	net.Forward(x)
	net.Hybridize(nn.HybridizeOptions{StaticAlloc: true, StaticShape: true})
	net.Forward(x)
	if n := testing.AllocsPerRun(20, func() { net.Forward(x) }); n != 0 {
		t.Errorf("a static hybridized call allocates %v times with profiling off, want 0", n)
	}
	relu := func() { eager.F.Relu(x) }
	off := testing.AllocsPerRun(20, relu)
	profiler.Run(func() {
		if on := testing.AllocsPerRun(20, relu); on <= off {
			t.Errorf("an eager op allocates %v times profiled and %v not: the hook does not run", on, off)
		}
	})
	if again := testing.AllocsPerRun(20, relu); again != off {
		t.Errorf("after profiling an eager op allocates %v times, before %v", again, off)
	}
}
