"""Timing helpers shared by the torch side of `hybridgo bench compare`."""

import json
import resource
import statistics
import sys
import time

# Normal and quick timings, matching the Go side (bench.DefaultTiming and
# bench.QuickTiming): keep going for `budget` seconds, at least `min_runs`
# and at most `max_runs` runs, after two warm-up calls.
NORMAL = {"budget": 1.0, "min_runs": 5, "max_runs": 2000}
QUICK = {"budget": 0.05, "min_runs": 3, "max_runs": 50}


def measure(fn, budget, min_runs, max_runs, warm=None):
    """Warms up (calls fn twice, or warm once when given), then times fn;
    returns the run times."""
    if warm is None:
        fn()
        fn()
    else:
        warm()
    times = []
    start = time.perf_counter()
    while len(times) < min_runs or (
        time.perf_counter() - start < budget and len(times) < max_runs
    ):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def peak_rss():
    """The process's peak resident set size in bytes (ru_maxrss is in KiB
    on Linux, in bytes on macOS)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024


def report(case, impl, threads, times, memory=False):
    """Prints one JSON line in the format the Go runner parses; with memory,
    it carries the process's peak RSS."""
    line = {
        "case": case,
        "impl": impl,
        "threads": threads,
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "runs": len(times),
    }
    if memory:
        line["peak_rss_bytes"] = peak_rss()
    print(json.dumps(line), flush=True)
