package viz_test

import (
	"fmt"
	"math"

	"github.com/hybridgo/hybridgo/viz"
)

// A loss curve in a terminal, full length and squeezed to four columns.
// A NaN (a skipped evaluation) is a gap.
func ExampleSparkline() {
	loss := []float64{2.3, 1.1, 0.7, 0.55, math.NaN(), 0.47, 0.45, 0.44}
	fmt.Println(viz.Sparkline(loss, 0))
	fmt.Println(viz.Sparkline(loss, 4))
	// Output:
	// █▃▂▁ ▁▁▁
	// █▂▁▁
}
