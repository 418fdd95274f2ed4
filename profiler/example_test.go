package profiler_test

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/profiler"
)

// Run records the op calls of a function; the aggregate counts them by op.
func ExampleRun() {
	x := eager.Ones(2, 3)
	p := profiler.Run(func() {
		y := eager.F.Relu(x)
		eager.F.Add(y, y)
		eager.F.Relu(y)
	})
	for _, s := range p.Ops() {
		fmt.Println(s.Name, s.Count, s.Mode)
	}
	// Unordered output:
	// relu 2 eager
	// broadcast_add 1 eager
}
