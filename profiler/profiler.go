package profiler

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/atomicfile"
)

// Config is the profiler's configuration, as MXNet's set_config.
type Config struct {
	// Filename is where Dump writes the Chrome trace; "profile.json"
	// when empty.
	Filename string
}

// The package-level profiler: SetState("run") records into rec until
// SetState("stop"); runs add up until Dumps(true) resets them.
var (
	mu      sync.Mutex
	config  Config
	rec     = newRecorder()
	running bool
)

// SetConfig sets the configuration of the package-level profiler.
func SetConfig(c Config) {
	mu.Lock()
	config = c
	mu.Unlock()
}

// SetState starts ("run") or stops ("stop") recording every op call,
// as MXNet's set_state. Recording is off until it is started.
func SetState(state string) error {
	mu.Lock()
	defer mu.Unlock()
	switch state {
	case "run":
		running = true
		eager.SetProfiler(rec)
	case "stop":
		running = false
		eager.SetProfiler(nil)
	default:
		return fmt.Errorf("profiler: SetState takes \"run\" or \"stop\", not %q", state)
	}
	return nil
}

// Current returns what the package-level profiler recorded since it was
// last reset.
func Current() *Profile {
	mu.Lock()
	defer mu.Unlock()
	return rec.profile()
}

// Dumps returns the aggregate table of what the package-level profiler
// recorded (see Profile.Table), as MXNet's dumps; with reset, it then
// forgets it.
func Dumps(reset bool) string {
	mu.Lock()
	defer mu.Unlock()
	s := rec.profile().Table()
	if reset {
		rec = newRecorder()
		if running {
			eager.SetProfiler(rec)
		}
	}
	return s
}

// Dump writes what the package-level profiler recorded as a Chrome trace
// (see Profile.WriteTrace) to the configured file, as MXNet's dump.
func Dump() error {
	mu.Lock()
	name := config.Filename
	p := rec.profile()
	mu.Unlock()
	if name == "" {
		name = "profile.json"
	}
	var b bytes.Buffer
	if err := p.WriteTrace(&b); err != nil {
		return err
	}
	return atomicfile.Write(name, b.Bytes(), 0o644)
}

// Run records every op call f makes (and the blocks around them) and
// returns the profile: the scoped form of SetState("run") … ("stop").
// The profiler installed before, if any, is put back afterwards.
func Run(f func()) *Profile {
	r := newRecorder()
	before := eager.ActiveProfiler()
	eager.SetProfiler(r)
	defer eager.SetProfiler(before)
	f()
	return r.profile()
}
