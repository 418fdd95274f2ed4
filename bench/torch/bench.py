"""The torch side of `hybridgo bench compare`: times one case with PyTorch
(and NumPy for SGEMM) and prints one JSON line per implementation.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python3 bench/torch/bench.py --case sgemm-512 --threads 1

The Go side passes each case's timing (--budget, --min-runs, --max-runs)
and --memory for the cases that report the peak RSS. With --info it
prints the versions of torch, torchvision and NumPy and the BLAS they
call, OpenBLAS's configuration with the core it chose; with --export-onnx
PATH it writes a real-size forward case's network as ONNX instead.
"""

import argparse
import ctypes
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import fashion  # noqa: E402
import gemm  # noqa: E402
import models  # noqa: E402
import timing  # noqa: E402
import zoo  # noqa: E402


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
    m = re.fullmatch(r"lstm-train-t(\d+)-b(\d+)", case)
    if m:
        return models.lstm_variants(steps=int(m.group(1)), batch=int(m.group(2)))
    real = zoo.variants(case)
    if real is not None:
        return real
    raise SystemExit(f"bench.py: no case {case!r}")


def blas():
    """Returns OpenBLAS's configuration (openblas_get_config) and the name
    of the core whose kernels it chose (openblas_get_corename), read from
    the BLAS library this process loaded; or, when that library is not
    OpenBLAS, what it is and an empty core."""
    import numpy

    numpy.dot(numpy.ones((2, 2)), numpy.ones((2, 2)))
    libs = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if re.search(r"/lib(open)?blas[^/]*\.so", path):
                libs.add(path)
    for path in sorted(libs):
        try:
            lib = ctypes.CDLL(path)
            config, core = lib.openblas_get_config, lib.openblas_get_corename
        except (OSError, AttributeError):
            continue
        config.restype = core.restype = ctypes.c_char_p
        return config().decode(), core().decode()
    return "not OpenBLAS: " + (", ".join(sorted(libs)) or "no BLAS library loaded"), ""


def info():
    """Prints the versions of the Python side and its BLAS as one JSON line."""
    import numpy
    import torchvision

    config, core = blas()
    print(json.dumps({"torch": torch.__version__, "torchvision": torchvision.__version__,
                      "numpy": numpy.__version__, "blas": config, "blas_core": core}), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--info", action="store_true", help="print the versions and the BLAS, and exit")
    parser.add_argument("--case")
    parser.add_argument("--export-onnx", metavar="PATH", help="write the case's network as ONNX to PATH, and exit")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--quick", action="store_true", help="few repetitions")
    parser.add_argument("--budget", type=float, help="seconds to keep timing for")
    parser.add_argument("--min-runs", type=int, help="at least this many runs")
    parser.add_argument("--max-runs", type=int, help="at most this many runs")
    parser.add_argument("--memory", action="store_true", help="report the peak RSS")
    args = parser.parse_args()
    if args.info:
        info()
        return
    if args.case is None:
        parser.error("--case is required")
    if args.export_onnx:
        zoo.export(args.case, args.export_onnx)
        return
    if args.threads is None:
        parser.error("--threads is required")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        if os.environ.get(var) != str(args.threads):
            print(f"bench.py: warning: {var} is not {args.threads}", file=sys.stderr)
    torch.set_num_threads(args.threads)
    settings = dict(timing.QUICK if args.quick else timing.NORMAL)
    for key in ("budget", "min_runs", "max_runs"):
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    pairs, warm = variants(args.case)
    for impl, fn in pairs:
        times = timing.measure(fn, warm=warm, **settings)
        timing.report(args.case, impl, args.threads, times, memory=args.memory)


if __name__ == "__main__":
    main()
