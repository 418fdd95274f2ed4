"""The LeNet of MXNet's hybridize tutorial and a small MLP, in PyTorch,
with forward passes and a training step to time."""

import torch
from torch import nn


class LeNet(nn.Module):
    """conv 6@5x5 relu, maxpool 2, conv 16@5x5 relu, maxpool 2, flatten,
    dense 120 relu, dense 84 relu, dense 10; input N x 1 x 28 x 28."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Linear(16 * 4 * 4, 120), nn.ReLU(),
            nn.Linear(120, 84), nn.ReLU(),
            nn.Linear(84, 10),
        )

    def forward(self, x):
        return self.head(self.features(x))


def mlp():
    """784-256-256-10 with relu between layers."""
    return nn.Sequential(
        nn.Linear(784, 256), nn.ReLU(),
        nn.Linear(256, 256), nn.ReLU(),
        nn.Linear(256, 10),
    )


def forward_variants(model, shape):
    """Eager (no_grad, eval) and traced + optimize_for_inference forwards."""
    torch.manual_seed(1)
    model.eval()
    x = torch.randn(*shape)

    def run_eager():
        with torch.no_grad():
            model(x)

    with torch.no_grad():
        traced = torch.jit.trace(model, x)
        frozen = torch.jit.optimize_for_inference(traced)

    def run_jit():
        with torch.no_grad():
            frozen(x)

    return [("torch-eager", run_eager), ("torch-jit", run_jit)]


def train_variants(batch, impls=("torch-eager", "torch-jit"), shape=None, make=None):
    """An SGD step (lr 0.01) with cross-entropy, eager and through a trace
    (the impls asked for only), of a new network from make (default LeNet)
    on a batch of the given shape (default batch x 1 x 28 x 28), labels
    cycling through 0-9."""
    torch.manual_seed(1)
    x = torch.randn(*(shape or (batch, 1, 28, 28)))
    y = torch.arange(batch) % 10
    loss_fn = nn.CrossEntropyLoss()
    out = []
    for impl in impls:
        model = (make or LeNet)()
        model.train()
        if impl == "torch-jit":
            model = torch.jit.trace(model, x)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)

        def step(model=model, opt=opt):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()

        out.append((impl, step))
    return out


def lstm_variants(layers=2, hidden=256, steps=35, batch=32):
    """A forward and backward pass of torch.nn.LSTM (input size = hidden),
    from an output gradient of ones, as the Go side's lstm case."""
    torch.manual_seed(1)
    model = nn.LSTM(hidden, hidden, layers)
    model.train()
    x = torch.randn(steps, batch, hidden)

    def step():
        model.zero_grad()
        out, _ = model(x)
        out.backward(torch.ones_like(out))

    return [("torch-eager", step)]
