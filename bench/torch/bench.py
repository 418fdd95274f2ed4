"""The torch side of `hybridgo bench compare`: times one case with PyTorch
(and NumPy for SGEMM) and prints one JSON line per implementation.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python3 bench/torch/bench.py --case sgemm-512 --threads 1
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import fashion  # noqa: E402
import gemm  # noqa: E402
import models  # noqa: E402
import timing  # noqa: E402


# The timing of the cases that override it, as on the Go side (Case.Timing):
# the memory case takes 20 steps, the epoch runs once.
MEMORY_STEPS = 20
OVERRIDES = {
    "lenet-train-b256-memory": {"budget": 0, "min_runs": MEMORY_STEPS, "max_runs": MEMORY_STEPS},
    "fashion-epoch": {"budget": 0, "min_runs": 1, "max_runs": 1},
}
# The cases that report the process's peak RSS; they have one implementation.
MEMORY = {"lenet-train-b256-memory"}


def variants(case):
    """Returns the (impl, callable) pairs of a case name, and a warm-up
    callable (None: each callable warms up by running twice)."""
    if case == "fashion-epoch":
        return fashion.epoch_variants()
    if case == "lenet-train-b256-memory":
        # Only the eager step, so that no traced model adds to the peak.
        return models.train_variants(256, impls=("torch-eager",)), None
    if case == "lenet-forward-b16-interp":
        # Ours is driven from interpreted Go; torch runs as in lenet-forward-b16.
        case = "lenet-forward-b16"
    return compiled_variants(case), None


def compiled_variants(case):
    """Returns the (impl, callable) pairs of the cases timed by repetition."""
    m = re.fullmatch(r"sgemm-(\d+)", case)
    if m:
        return gemm.variants(int(m.group(1)))
    m = re.fullmatch(r"lenet-forward-b(\d+)", case)
    if m:
        return models.forward_variants(models.LeNet(), (int(m.group(1)), 1, 28, 28))
    m = re.fullmatch(r"mlp-forward-b(\d+)", case)
    if m:
        return models.forward_variants(models.mlp(), (int(m.group(1)), 784))
    m = re.fullmatch(r"lenet-train-b(\d+)", case)
    if m:
        return models.train_variants(int(m.group(1)))
    raise SystemExit(f"bench.py: no case {case!r}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--quick", action="store_true", help="few repetitions")
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        if os.environ.get(var) != str(args.threads):
            print(f"bench.py: warning: {var} is not {args.threads}", file=sys.stderr)
    torch.set_num_threads(args.threads)
    settings = timing.QUICK if args.quick else timing.NORMAL
    settings = OVERRIDES.get(args.case, settings)
    pairs, warm = variants(args.case)
    for impl, fn in pairs:
        times = timing.measure(fn, warm=warm, **settings)
        timing.report(args.case, impl, args.threads, times, memory=args.case in MEMORY)


if __name__ == "__main__":
    main()
