package viz_test

import (
	"fmt"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
	"github.com/hybridgo/hybridgo/viz"
)

func ExampleDrawText() {
	tr := graph.NewTracer()
	F := tr.F()
	x := graph.Var("data", ops.Shape{2, 4}, ops.Float32)
	w := graph.Var("fc_weight", ops.Shape{3, 4}, ops.Float32)
	b := graph.Var("fc_bias", ops.Shape{3}, ops.Float32)
	y := F.Relu(F.FullyConnected(x, w, b, 3)).(*graph.Symbol)

	o := viz.DefaultOptions()
	o.ParamCounts = true
	s, err := viz.DrawText(y.Graph(), o, 80)
	if err != nil {
		panic(err)
	}
	fmt.Print(s)
	// Output:
	//              ┌───────┐
	//              │ data  │
	//              │  2x4  │
	//              └───────┘
	//                  │
	//                  ▼
	// ┌─────────────────────────────────┐
	// │ fullyconnected0 FullyConnected  │
	// │         2x3 · 15 params         │
	// └─────────────────────────────────┘
	//                  │
	//                  ▼
	//           ┌─────────────┐
	//           │ relu0 relu  │
	//           │     2x3     │
	//           └─────────────┘
}
