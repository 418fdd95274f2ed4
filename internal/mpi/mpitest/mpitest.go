// Package mpitest runs a test binary's worker test under mpirun: the
// tests of the mpi build launch themselves as the ranks of a job.
package mpitest

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ScenarioVar is the environment variable that tells a test binary it is
// a rank of a job, and which scenario to play.
const ScenarioVar = "HYBRIDGO_MPI_SCENARIO"

// Scenario is the scenario this process plays, "" outside mpirun.
func Scenario() string { return os.Getenv(ScenarioVar) }

// Result is how a job ended.
type Result struct {
	Output  string // stdout and stderr of mpirun and every rank
	Err     error  // nil when every rank exited with 0
	Elapsed time.Duration
}

// Run starts np copies of this test binary under mpirun, each running
// only the test named worker with scenario in ScenarioVar, and env (NAME=value)
// added to their environment. It fails t when mpirun is missing or the
// job outlives limit.
func Run(t testing.TB, np int, worker, scenario string, limit time.Duration, env ...string) Result {
	t.Helper()
	return RunIn(t, "", np, worker, scenario, limit, env...)
}

// RunIn is Run with the ranks working in dir ("" for this directory).
func RunIn(t testing.TB, dir string, np int, worker, scenario string, limit time.Duration, env ...string) Result {
	t.Helper()
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Fatalf("mpirun is not installed (apt-get install openmpi-bin libopenmpi-dev; make test does it): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	args := []string{"--oversubscribe", "--allow-run-as-root", "-np", strconv.Itoa(np), "-x", ScenarioVar}
	if dir != "" {
		args = append(args, "-wdir", dir)
	}
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		args = append(args, "-x", name)
	}
	args = append(args, os.Args[0], "-test.run", "^"+worker+"$", "-test.count=1", "-test.v")
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Env = append(append(os.Environ(), ScenarioVar+"="+scenario), env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	r := Result{Output: string(out), Err: err, Elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("the job was still running after %v:\n%s", limit, out)
	}
	return r
}
