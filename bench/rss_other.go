//go:build !unix

package bench

import (
	"fmt"
	"runtime"
)

// peakRSS is not available on this system.
func peakRSS() (int64, error) {
	return 0, fmt.Errorf("the peak resident set size is not measured on %s", runtime.GOOS)
}
