"""A Fashion-MNIST training epoch in PyTorch: the loop of the fashion-epoch
case, read from the IDX files of Debian's dataset-fashion-mnist."""

import gzip
import os

import numpy
import torch
from torch import nn

import models

DIR = "/usr/share/datasets/fashion-mnist"
INSTALL = ("install it with `apt-get install dataset-fashion-mnist` (Debian), "
           "which puts the files in " + DIR)
BATCH = 64
WARM_STEPS = 3


def read_idx(path, magic):
    """Reads an IDX file of unsigned bytes (gzipped or not) as an array."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    got = int.from_bytes(raw[0:4], "big")
    if got != magic:
        raise SystemExit(f"bench.py: {path}: magic number {got:#010x}, want {magic:#010x}")
    ndim = magic & 0xFF
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    data = numpy.frombuffer(raw, dtype=numpy.uint8, offset=4 + 4 * ndim)
    if data.size != numpy.prod(dims):
        raise SystemExit(f"bench.py: {path}: {data.size} bytes of data, want {numpy.prod(dims)}")
    return data.reshape(dims)


def find(name):
    for p in (os.path.join(DIR, name + ".gz"), os.path.join(DIR, name)):
        if os.path.isfile(p):
            return p
    raise SystemExit(f"bench.py: the Fashion-MNIST file {name}(.gz) is not in {DIR}; {INSTALL}")


def load():
    """The training set: images N x 1 x 28 x 28 float32 with the pixels
    scaled to [0, 1] (as data.LoadFashionMNIST does: value / 255), labels
    int64."""
    if not os.path.isdir(DIR):
        raise SystemExit(f"bench.py: the Fashion-MNIST directory {DIR} does not exist; {INSTALL}")
    images = read_idx(find("train-images-idx3-ubyte"), 0x00000803)
    labels = read_idx(find("train-labels-idx1-ubyte"), 0x00000801)
    if len(images) != len(labels):
        raise SystemExit(f"bench.py: {len(images)} images but {len(labels)} labels")
    x = images.astype(numpy.float32) / numpy.float32(255)
    x = torch.from_numpy(x.reshape(len(images), 1, images.shape[1], images.shape[2]))
    y = torch.from_numpy(labels.astype(numpy.int64))
    return x, y


def epoch_variants():
    """Returns [("torch-eager", epoch)] and the warm-up: an epoch is an SGD
    step (lr 0.01, cross-entropy) per batch of 64 shuffled samples."""
    torch.manual_seed(1)
    x, y = load()
    n = len(x)
    perm = torch.from_numpy(numpy.random.default_rng(1).permutation(n))
    model = models.LeNet()
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()

    def step(idx):
        opt.zero_grad()
        loss = loss_fn(model(x[idx]), y[idx])
        loss.backward()
        opt.step()

    def warm():
        for i in range(WARM_STEPS):
            step(perm[i * BATCH:(i + 1) * BATCH])

    def epoch():
        for i in range(0, n, BATCH):
            step(perm[i:i + BATCH])

    return [("torch-eager", epoch)], warm
