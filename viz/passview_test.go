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

func TestPassViewFoldsResidualBlocks(t *testing.T) {
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
	// Each block's convolutions take their BatchNorm, the second also the
	// residual sum, and relu: 3 blocks of 7 ops become 3 of 2.
	if title[1] != "10" || title[2] != "15" || title[3] != "0" {
		t.Errorf("title %q: want 10 nodes, 15 fused, 0 removed", title[0])
	}
	for _, want := range []string{"_fused_Convolution_BatchNorm_add_relu", `class="node fused"`, "buf 0"} {
		if !strings.Contains(s, want) {
			t.Errorf("pass view lacks %q", want)
		}
	}
	for _, want := range []string{title[0], "FoldBatchNorm: 9 changes", "FuseActivation: 6 changes", "memory plan: " + title[4] + " buffers"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}

// The view shows the passes of the program of calls outside training:
// BatchNorm folded into the convolution before it, then relu fused.
func TestPassViewFoldsBatchNorm(t *testing.T) {
	v := func(name string, shape ...int) ops.Tensor { return graph.Var(name, ops.Shape(shape), ops.Float32) }
	F := graph.F
	conv := F.Convolution(v("data", 1, 3, 8, 8), v("w", 4, 3, 3, 3), nil, []int{3, 3}, 4)
	y := F.Relu(F.BatchNorm(conv, v("gamma", 4), v("beta", 4), v("mean", 4), v("var", 4))).(*graph.Symbol)
	svg, text, err := viz.PassView(y.Graph(), viz.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "FoldBatchNorm: 1 change") || !strings.Contains(text, "FuseActivation: 1 change") {
		t.Errorf("report lacks the folding and the fusion:\n%s", text)
	}
	if !strings.Contains(string(svg), "_fused_Convolution_BatchNorm_relu") {
		t.Errorf("the after panel lacks the folded node")
	}
}
