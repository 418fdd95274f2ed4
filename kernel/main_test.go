package kernel

import (
	"os"
	"slices"
	"testing"
)

// The test binary is also the kernel's worker process, as hybridgo is
// its own (the kernel starts its executable with WorkerArgs).
func TestMain(m *testing.M) {
	if len(os.Args) == 1+len(WorkerArgs) && slices.Equal(os.Args[1:], WorkerArgs) {
		os.Exit(Worker())
	}
	os.Exit(m.Run())
}
