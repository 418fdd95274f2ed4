//go:build unix

package bench

import (
	"runtime"
	"syscall"
)

// peakRSS returns the largest resident set size this process has had, in
// bytes: getrusage's ru_maxrss, which Linux counts in KiB and macOS in
// bytes.
func peakRSS() (int64, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss), nil
	}
	return int64(ru.Maxrss) * 1024, nil
}
