package repl

import (
	"strings"
	"testing"
)

// The hybridize tutorial of ARCHITECTURE.md section 1, typed as cells.
func TestHybridizeTutorial(t *testing.T) {
	s := newTestSession(t)
	s.must(`type Net struct {
	nn.HybridBlock
	Conv1, Conv2 *nn.Conv2D
	Pool1, Pool2 *nn.MaxPool2D
	Fc1, Fc2     *nn.Dense
	Fc3Weight    *nn.Parameter
}`)
	s.must(`func (n *Net) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	fmt.Println(x)
	x = n.Pool1.Forward(F.Relu(n.Conv1.Forward(x)))
	x = n.Pool2.Forward(F.Relu(n.Conv2.Forward(x)))
	x = F.Reshape(x, 0, -1) // 0 copies a dim, -1 infers it
	x = F.Relu(n.Fc1.Forward(x))
	x = F.Relu(n.Fc2.Forward(x))
	return F.Dot(x, nn.Param(F, n.Fc3Weight), ops.TransposeB())
}`)
	s.must(`func NewNet() *Net {
	n := &Net{
		Conv1: nn.NewConv2D(6, []int{5}), Pool1: nn.NewMaxPool2D([]int{2}),
		Conv2: nn.NewConv2D(16, []int{5}), Pool2: nn.NewMaxPool2D([]int{2}),
		Fc1: nn.NewDense(120), Fc2: nn.NewDense(84),
		Fc3Weight: nn.NewParameter("fc3_weight", ops.Shape{10, 0}),
	}
	n.Bind(n, "net")
	return n
}`)
	s.must("net := NewNet()")
	if got := s.must("net.Initialize()"); got != "" {
		t.Errorf("Initialize displayed %q", got)
	}
	s.must("x := nd.RandomNormal(16, 1, 28, 28)")
	s.out.Reset()
	got := s.must("net.Forward(x)")
	if !strings.Contains(s.out.String(), "<NDArray 16x1x28x28 @cpu(0)>") {
		t.Errorf("eager forward printed %q", tail(s.out.String()))
	}
	if !strings.HasSuffix(got, "<NDArray 16x10 @cpu(0)>") {
		t.Errorf("eager forward displayed %q", tail(got))
	}
	s.must("net.Hybridize()")
	s.out.Reset()
	got = s.must("net.Forward(x)")
	if printed := strings.TrimSpace(s.out.String()); printed != "<Symbol data 16x1x28x28 float32>" {
		t.Errorf("tracing forward printed %q", printed)
	}
	if !strings.HasSuffix(got, "<NDArray 16x10 @cpu(0)>") {
		t.Errorf("hybridized forward displayed %q", tail(got))
	}
	s.out.Reset()
	s.must("y := net.Forward(x)")
	if s.out.Len() != 0 {
		t.Errorf("the cached graph entered HybridForward: %q", s.out.String())
	}
	if got := s.must("y.Shape()"); got != "16x10" && got != "[16 10]" {
		t.Errorf("y.Shape() = %q", got)
	}
	// The variables list names the interpreted type.
	found := false
	for _, v := range s.Vars() {
		if v.Name == "net" {
			found = true
			if v.Type != "*Net" {
				t.Errorf("net has type %q, want *Net", v.Type)
			}
		}
		if v.Name == "x" && v.Summary != "<NDArray 16x1x28x28 @cpu(0)>" {
			t.Errorf("x summary %q", v.Summary)
		}
	}
	if !found {
		t.Errorf("Vars has no net: %v", s.Vars())
	}
}

func tail(s string) string {
	if len(s) > 200 {
		return "..." + s[len(s)-200:]
	}
	return s
}
