package optim_test

import (
	"fmt"

	"github.com/hybridgo/hybridgo/nn/optim"
)

// The rate halves every 2 updates, and warms up over the first 2.
func ExampleWarmupSchedule() {
	s := optim.WarmupSchedule(2, 0, optim.FactorSchedule(2, 0.5, 0))
	for n := 0; n <= 8; n++ {
		fmt.Print(s.LR(0.4, n), " ")
	}
	fmt.Println()
	// Output: 0 0.2 0.4 0.4 0.4 0.2 0.2 0.1 0.1
}
