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

import gemm  # noqa: E402
import models  # noqa: E402
import timing  # noqa: E402


def variants(case):
    """Returns the (impl, callable) pairs of a case name."""
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
    for impl, fn in variants(args.case):
        times = timing.measure(fn, **settings)
        timing.report(args.case, impl, args.threads, times)


if __name__ == "__main__":
    main()
