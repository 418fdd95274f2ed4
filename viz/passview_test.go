package viz_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
	"github.com/hybridgo/hybridgo/viz"
)

func TestPassViewTitleOfOneNode(t *testing.T) {
	x := graph.Var("data", ops.Shape{2, 3}, ops.Float32)
	y := graph.F.Relu(graph.F.Tanh(x)).(*graph.Symbol)
	_, text, err := viz.PassView(y.Graph(), viz.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if want := "after: 1 node, fused 2, removed 0,"; !strings.HasPrefix(text, want) {
		t.Errorf("report starts %.60q, want %q", text, want)
	}
}

func TestPassViewFusesResidualAdds(t *testing.T) {
	svg, text, err := viz.PassView(resnet(t), viz.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	if !strings.Contains(s, ">before</text>") {
		t.Error("no before panel")
	}
	title := regexp.MustCompile(`after: (\d+) nodes, fused (\d+), removed (\d+), buffers (\d+) of (\d+)`).FindStringSubmatch(s)
	if title == nil {
		t.Fatalf("no after title in %.400s", s)
	}
	// Each block's add and relu become one fused node.
	if title[2] != "6" || title[3] != "0" {
		t.Errorf("title %q: want 6 fused, 0 removed", title[0])
	}
	for _, want := range []string{"fused0 _fused_elemwise", `class="node fused"`, "buf 0"} {
		if !strings.Contains(s, want) {
			t.Errorf("pass view lacks %q", want)
		}
	}
	for _, want := range []string{title[0], "FuseElementwise: 3 changes", "memory plan: " + title[4] + " buffers"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}
