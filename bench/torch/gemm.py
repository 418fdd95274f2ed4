"""SGEMM: torch.mm and numpy.dot (OpenBLAS) on square float32 matrices."""

import numpy
import torch


def variants(n):
    """Returns (impl, callable) pairs multiplying two n x n matrices."""
    gen = numpy.random.default_rng(1)
    a = gen.standard_normal((n, n), dtype=numpy.float32)
    b = gen.standard_normal((n, n), dtype=numpy.float32)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    tc = torch.empty(n, n)
    nc = numpy.empty((n, n), dtype=numpy.float32)

    def with_torch():
        torch.mm(ta, tb, out=tc)

    def with_numpy():
        numpy.dot(a, b, out=nc)

    return [("torch-eager", with_torch), ("numpy", with_numpy)]
