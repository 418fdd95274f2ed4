package repl

import (
	"fmt"
	"strings"
	"testing"

	disp "github.com/hybridgo/hybridgo/display"
	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
)

const stateNet = `type Net struct {
	nn.HybridBlock
	Fc *nn.Dense
}

func (n *Net) HybridForward(F ops.F, x ops.Tensor) ops.Tensor { return n.Fc.Forward(x) }`

// lookup returns the value of a session variable as text.
func (s *testSession) lookup(name string) string {
	s.t.Helper()
	v, ok := s.Lookup(name)
	if !ok {
		s.t.Fatalf("no variable %s", name)
	}
	return fmt.Sprint(v.Interface())
}

// TestSessionsAreIndependent alternates the cells of two sessions: each
// has its own modes, random stream, block names and variables.
func TestSessionsAreIndependent(t *testing.T) {
	a, b := newTestSession(t), newTestSession(t)
	for _, s := range []*testSession{a, b} {
		s.must(stateNet)
	}
	a.must("eager.Seed(1)")
	b.must("eager.Seed(5)")
	a.must("drawn := fmt.Sprint(eager.RandomUniform(4).Float32s())")
	a.must("_ = eager.SetRecording(true)") // stays on after the cell
	a.must(`net := &Net{Fc: nn.NewDense(2)}; net.Bind(net, "net"); name := net.Name()`)
	b.must("recording := eager.IsRecording()")
	b.must(`net := &Net{Fc: nn.NewDense(2)}; net.Bind(net, "net"); name := net.Name()`)
	b.must("drawn := fmt.Sprint(eager.RandomUniform(4).Float32s())")
	a.must("drawn2 := fmt.Sprint(eager.RandomUniform(4).Float32s())") // moves a's stream only
	b.must("drawn2 := fmt.Sprint(eager.RandomUniform(4).Float32s())")
	a.must("recording := eager.IsRecording()")
	a.must("onlyInA := 1")

	// What fresh sessions draw with the same seeds, alone in the process.
	freshDraws := func(seed int) (string, string) {
		s := newTestSession(t)
		s.must(fmt.Sprintf("eager.Seed(%d)", seed))
		s.must("drawn := fmt.Sprint(eager.RandomUniform(4).Float32s())")
		s.must("drawn2 := fmt.Sprint(eager.RandomUniform(4).Float32s())")
		return s.lookup("drawn"), s.lookup("drawn2")
	}
	freshA, freshA2 := freshDraws(1)
	freshB, freshB2 := freshDraws(5)

	tests := []struct {
		what, got, want string
	}{
		{"a's block", a.lookup("name"), "net0"},
		{"b's block", b.lookup("name"), "net0"},
		{"a's recording flag", a.lookup("recording"), "true"},
		{"b's recording flag", b.lookup("recording"), "false"},
		{"the process's recording flag", fmt.Sprint(eager.IsRecording()), "false"},
		{"a's first draws", a.lookup("drawn"), freshA},
		{"a's second draws", a.lookup("drawn2"), freshA2},
		{"b's first draws", b.lookup("drawn"), freshB},
		{"b's second draws", b.lookup("drawn2"), freshB2},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %s, want %s", tt.what, tt.got, tt.want)
		}
	}
	if freshA == freshB {
		t.Errorf("seeds 1 and 5 drew the same %s: the test cannot tell the streams apart", freshA)
	}
	if err := b.fails("onlyInA"); !strings.Contains(err.Error(), "undefined: onlyInA") {
		t.Errorf("b reading a's variable: %v, want undefined: onlyInA", err)
	}
}

// publishedCount counts the displays a session's publisher receives.
type publishedCount struct{ n int }

func (p *publishedCount) Display(disp.Bundle, string, bool) { p.n++ }

// What a front end installs in its session with InState (the terminal's
// trace observer, the kernel's display publisher) reaches that session's
// cells and no other session's.
func TestFrontEndSettingsStayInTheirSession(t *testing.T) {
	a, b := newTestSession(t), newTestSession(t)
	var traced []string
	pub := &publishedCount{}
	a.InState(func() {
		graph.SetTraceObserver(func(n *graph.Node) { traced = append(traced, n.Op.Name()) })
		disp.SetPublisher(pub)
	})
	hybridRelu := `x := nd.Ones(2, 3); net := nn.NewHybridLambda(func(F ops.F, x ops.Tensor) ops.Tensor { return F.Relu(x) }); net.Hybridize(); _ = net.Forward(x)`
	b.must(hybridRelu)
	b.must(`display.HTML("<b>b</b>")`)
	if len(traced) != 0 || pub.n != 0 {
		t.Fatalf("b's cells reached a's observer (%v) or publisher (%d displays)", traced, pub.n)
	}
	a.must(hybridRelu)
	a.must(`display.HTML("<b>a</b>")`)
	if len(traced) != 1 || traced[0] != "relu" || pub.n != 1 {
		t.Errorf("a's cells: observer saw %v, publisher %d displays; want [relu] and 1", traced, pub.n)
	}
	if graph.SetTraceObserver(nil) != nil || disp.CurrentPublisher() != nil {
		t.Error("a's settings leaked into the process's own state")
	}
}
