# Writes ONNX models with torch.onnx.export for nn's ONNX import test:
# for each model NAME, NAME.onnx (opset 13, dynamic batch), NAME.in (an
# input batch of 3) and NAME.out (PyTorch's output for it), both as
# little-endian float32, and a line "NAME d0,d1,... e0,e1,..." with the
# input and output shapes on standard output.
import sys
import torch
import torchvision

torch.manual_seed(0)


class View(torch.nn.Module):
    """x.view(x.size(0), -1): the shape computation PyTorch exports as
    Shape, Gather, Unsqueeze, Concat and Reshape."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
        x = x.view(x.size(0), -1)
        return torch.softmax(self.fc(x) * 2 + 1, dim=1)


class Mixed(torch.nn.Module):
    """Many ops at once: transposed and grouped convolutions, average
    pooling with and without padding counted, ceil-mode max pooling, the
    activations, a dense layer on 3-D data (MatMul and Add), a per-channel
    PReLU, concatenation, a mean over dims, and log-softmax."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.group = torch.nn.Conv2d(8, 8, 3, padding=1, groups=4)
        self.up = torch.nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.prelu = torch.nn.PReLU(4)
        self.dense = torch.nn.Linear(9, 6)
        self.out = torch.nn.Linear(6, 7)

    def forward(self, x):
        x = torch.nn.functional.leaky_relu(self.conv(x), 0.1)
        x = torch.nn.functional.elu(self.group(x))
        x = self.prelu(self.up(x))
        a = torch.nn.functional.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)
        m = torch.nn.functional.max_pool2d(x, 3, stride=2, ceil_mode=True)
        x = torch.cat([torch.sigmoid(a), torch.tanh(m[:, :, :a.shape[2], :a.shape[3]])], dim=1)
        x = x.reshape(x.shape[0], 8, -1)[:, :, :9]
        x = torch.nn.functional.hardswish(self.dense(x))
        x = x.permute(0, 2, 1).mean(dim=2)
        return torch.log_softmax(self.out(x.abs().sqrt() - 0.5), dim=1)


models = {
    "view": (View(), 8),
    "mixed": (Mixed(), 16),
    "resnet18": (torchvision.models.resnet18(num_classes=10), 64),
    "mobilenet_v2": (torchvision.models.mobilenet_v2(num_classes=10), 64),
    "mobilenet_v3_small": (torchvision.models.mobilenet_v3_small(num_classes=10), 64),
    "squeezenet1_1": (torchvision.models.squeezenet1_1(num_classes=10), 64),
    "densenet121": (torchvision.models.densenet121(num_classes=10), 64),
    "inception_v3": (torchvision.models.inception_v3(num_classes=10, aux_logits=False, init_weights=False), 75),
}
only = sys.argv[1:]
for name, (model, size) in models.items():
    if only and name not in only:
        continue
    # Statistics and scales away from their initial values, so that the
    # batch norms (folded into the convolutions or not) are really checked.
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            torch.nn.init.uniform_(m.weight, 0.5, 1.5)
            torch.nn.init.uniform_(m.bias, -0.5, 0.5)
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    model.eval()
    torch.onnx.export(model, torch.randn(1, 3, size, size), name + ".onnx", opset_version=13,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    x = torch.randn(3, 3, size, size)
    with torch.no_grad():
        y = model(x)
    x.numpy().astype("<f4").tofile(name + ".in")
    y.numpy().astype("<f4").tofile(name + ".out")
    print(name, ",".join(map(str, x.shape)), ",".join(map(str, y.shape)))
