"""The real-size cases: torchvision's ResNet-18 and MobileNet v2 (the
networks nn/vision's resnet18_v1 and mobilenetv2_1.0 are checked against),
with random parameters, forward and training step as in models.py, and
their export to ONNX for the ONNX Runtime side."""

import re

import torch
import torchvision
from torchvision.ops.misc import Conv2dNormActivation

import models


def gluon_mobilenet_v2():
    """torchvision's MobileNet v2 made Gluon's mobilenetv2_1.0, the network
    the Go side runs: Gluon's first bottleneck keeps its 1x1 expansion
    convolution (32 to 32 channels at 112x112, with batch norm and ReLU6)
    though its expansion is 1, where torchvision leaves it out. Without it
    the peers would compute a smaller network than ours."""
    m = torchvision.models.mobilenet_v2()
    first = m.features[1]
    expand = Conv2dNormActivation(32, 32, kernel_size=1, norm_layer=torch.nn.BatchNorm2d, activation_layer=torch.nn.ReLU6)
    first.conv = torch.nn.Sequential(expand, *first.conv)
    return m


NETWORKS = {"resnet18": torchvision.models.resnet18, "mobilenetv2": gluon_mobilenet_v2}


def parse(case):
    """Splits a real-size case name into (network, kind, batch, size), or
    returns None. The training step runs at 112x112, as on the Go side
    (bench.realTrainSize)."""
    m = re.fullmatch(r"(resnet18|mobilenetv2)-(forward|train)-b(\d+)(-memory)?", case)
    if not m or m.group(4) and m.group(2) != "train":
        return None
    size = 224 if m.group(2) == "forward" else 112
    return m.group(1), m.group(2), int(m.group(3)), size


def network(name):
    torch.manual_seed(1)
    return NETWORKS[name]()


def variants(case):
    """Returns the (impl, callable) pairs of a real-size case, or None."""
    parsed = parse(case)
    if parsed is None:
        return None
    name, kind, batch, size = parsed
    shape = (batch, 3, size, size)
    if kind == "forward":
        return models.forward_variants(network(name), shape)
    if case.endswith("-memory"):
        # Only the eager step, so that no traced model adds to the peak.
        return models.train_variants(batch, impls=("torch-eager",), shape=shape, make=lambda: network(name))
    return models.train_variants(batch, shape=shape, make=lambda: network(name))


def export(case, path):
    """Writes the eval-mode network of a forward case to path as ONNX
    (opset 13), with the case's input shape."""
    parsed = parse(case)
    if parsed is None or parsed[1] != "forward":
        raise SystemExit(f"bench.py: case {case!r} has no ONNX model")
    name, _, batch, size = parsed
    model = network(name)
    model.eval()
    x = torch.randn(batch, 3, size, size)
    with torch.no_grad():
        torch.onnx.export(model, x, path, opset_version=13, input_names=["data"], output_names=["output"])
