package worker

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// memoryEnv passes the memory limit to the worker process, in bytes.
const memoryEnv = "HYBRIDGO_WORKER_MEMORY"

// DefaultMemoryPercent of physical memory is the worker's memory limit
// unless Options.MemoryLimit says otherwise.
const DefaultMemoryPercent = 75

// PhysicalMemory returns the machine's memory (MemTotal in /proc/meminfo)
// in bytes, 0 where it is not known.
func PhysicalMemory() int64 { return procBytes("/proc/meminfo", "MemTotal:") }

// procBytes reads a "Key:   123 kB" line of a /proc file, in bytes; 0
// when there is none.
func procBytes(file, key string) int64 {
	f, err := os.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// DefaultMemoryLimit is DefaultMemoryPercent of physical memory, or -1
// (no limit) where that is not known.
func DefaultMemoryLimit() int64 {
	if m := PhysicalMemory(); m > 0 {
		return m / 100 * DefaultMemoryPercent
	}
	return -1
}

// ParseMemory reads a memory limit as hybridgo's -memory flag takes it:
// bytes with a unit ("8GiB", "512MiB", "2G"), a percentage of physical
// memory ("50%"), or "off" (no limit, -1).
func ParseMemory(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "off" || t == "none" {
		return -1, nil
	}
	if p, ok := strings.CutSuffix(t, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		phys := PhysicalMemory()
		if err != nil || f <= 0 || f > 100 || phys == 0 {
			return 0, fmt.Errorf("memory limit %q: a percentage from 0 to 100 of physical memory (known: %v)", s, phys > 0)
		}
		return int64(float64(phys) * f / 100), nil
	}
	units := []struct {
		suffix string
		n      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(num), u.n
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("memory limit %q: give a size such as 8GiB or 512MiB, a percentage such as 50%%, or off", s)
	}
	return int64(f * float64(mult)), nil
}

// FormatBytes writes n bytes with a binary unit: "40 GiB", "1.5 MiB".
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0") + " " + units[i]
}

// maxStack is the deepest a goroutine's stack may grow in the worker:
// Go's default of 1 GB would take seconds to reach and, under a small
// limit, end as out of memory rather than as a stack overflow.
const maxStack = 256 << 20

// memoryLimit takes the limit the front end passed out of the
// environment (it is not for the programs that cells start).
func memoryLimit() int64 {
	v := os.Getenv(memoryEnv)
	os.Unsetenv(memoryEnv)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// applyMemoryLimit gives the worker its limit once its session is up:
// an address space ceiling (so that a huge allocation fails in the
// worker rather than making the machine swap or the system kill a
// process), a soft limit for the garbage collector below it, and a
// stack ceiling well below it.
func applyMemoryLimit(n int64) {
	if n <= 0 {
		return
	}
	limitAddressSpace(n)
	debug.SetMemoryLimit(n / 4 * 3)
	debug.SetMaxStack(int(min(n/8, maxStack)))
}
