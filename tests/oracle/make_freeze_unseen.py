#!/usr/bin/python3
"""Archives for measuring `jitctl freeze` and `jitctl optimize` on models nobody here has seen:
torchvision CNNs traced and scripted (random weights, batch-norm statistics made non-trivial so that
folding them shows), RNNs, transformers, and small modules written for what freezing must get right
(control flow, constant loops, several methods, attributes the code changes, interface attributes,
forks, container attributes, tied weights, dropout, conv followed by per-channel arithmetic). One
input set each, in the flat layout compat.py reads:

  /usr/bin/python3 tests/oracle/make_freeze_unseen.py /tmp/freeze_unseen
  /usr/bin/python3 ../shared/oracle/compat.py --jitctl build/cli/jitctl --models /tmp/freeze_unseen \\
      --checks freeze,optimize

Not run by the test suite (building torchvision models takes minutes)."""
import os
import sys
from typing import Dict, List

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from freeze_unseen_common import output_folder, saver  # noqa: E402

torch.manual_seed(7)
OUT, ONLY = output_folder("/tmp/freeze_unseen")
save = saver(OUT, ONLY)
tv = torchvision.models


# ---- torchvision CNNs
x = (torch.randn(1, 3, 64, 64),)
for n, f in [("resnet18", tv.resnet18), ("mobilenet_v2", tv.mobilenet_v2), ("mobilenet_v3_small", tv.mobilenet_v3_small),
             ("squeezenet1_0", tv.squeezenet1_0), ("shufflenet_v2_x1_0", tv.shufflenet_v2_x1_0),
             ("densenet121", tv.densenet121), ("efficientnet_b0", tv.efficientnet_b0), ("mnasnet0_5", tv.mnasnet0_5),
             ("regnet_x_400mf", tv.regnet_x_400mf)]:
    for script in (True, False):
        save(f"{n}_{'scripted' if script else 'traced'}", f, x, script)
save("googlenet_scripted", lambda: tv.googlenet(aux_logits=False, init_weights=True), x, True)

# ---- sequence models
class RNNs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(16, 32, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = torch.nn.GRU(64, 8)
        self.drop = torch.nn.Dropout(0.3)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        z, hg = self.gru(self.drop(y))
        return z, h, c, hg


for script in (True, False):
    save(f"rnns_{'scripted' if script else 'traced'}", RNNs, (torch.randn(3, 5, 16),), script)
    save(f"encoder_{'scripted' if script else 'traced'}",
         lambda: torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True), 2),
         (torch.randn(2, 10, 64),), script)
save("transformer_scripted", lambda: torch.nn.Transformer(32, 4, 1, 1, 64), (torch.randn(6, 2, 32), torch.randn(5, 2, 32)),
     True)


# ---- what freezing must get right
class ControlFlow(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.scale = 0.5
        self.use_gate = True
        self.steps = 3

    def forward(self, x, n: int):
        for _ in range(self.steps):  # a constant trip count once frozen: unrolled
            x = torch.tanh(self.fc(x))
        if self.use_gate:  # a constant condition once frozen
            x = x * torch.sigmoid(x)
        i = 0
        while i < n:  # stays a loop
            x = x + self.scale
            i += 1
        return x


class Counter(torch.nn.Module):
    # Attributes the code changes stay attributes; the others fold.
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(4))
        self.calls = 0
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        self.running.add_(x.mean(0))
        self.calls += 1
        return self.fc(x) + self.running * float(self.calls)


@torch.jit.interface
class Activation(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pass


class Swish(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)


class WithInterface(torch.nn.Module):
    act: Activation

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 6)
        self.act = Swish()

    def forward(self, x):
        return self.act(self.fc(x))


class MultiMethod(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(5, 3)
        self.dec = torch.nn.Linear(3, 5)

    @torch.jit.export
    def encode(self, x):
        return torch.relu(self.enc(x))

    def forward(self, x):
        return self.dec(self.encode(x))


def branch(x, w):
    return torch.relu(x @ w)


class Forks(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 4))
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        f = torch.jit.fork(branch, x, self.w)
        y = self.fc(x)
        return torch.jit.wait(f) + y


class Containers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])
        self.table: Dict[str, float] = {"a": 1.5, "b": -0.5}
        self.sizes: List[int] = [2, 2]

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x.reshape(self.sizes[0], -1) * self.table["a"] + self.table["b"]


class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 6)
        self.out = torch.nn.Linear(6, 10, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, ids):
        return self.out(self.emb(ids))


class ConvArith(torch.nn.Module):
    # conv -> mul -> add -> batch_norm chains fold into the conv; dropout goes.
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = torch.nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(8)
        self.register_buffer("gain", torch.rand(1, 8, 1, 1) + 0.5)
        self.drop = torch.nn.Dropout2d(0.2)

    def forward(self, x):
        y = self.c1(x) * self.gain + 0.25
        y = self.drop(torch.relu(y))
        return self.bn(self.c2(y) / 2.0 - 1.0)


class MlpBn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.BatchNorm1d(32), torch.nn.ReLU(),
                                       torch.nn.Dropout(0.1), torch.nn.Linear(32, 4))

    def forward(self, x):
        return self.net(x)


for script in (True, False):
    kind = "scripted" if script else "traced"
    save(f"conv_arith_{kind}", ConvArith, (torch.randn(2, 3, 16, 16),), script)
    save(f"mlp_bn_{kind}", MlpBn, (torch.randn(4, 10),), script)
    save(f"tied_{kind}", Tied, (torch.randint(0, 10, (2, 5)),), script)
save("control_flow_scripted", ControlFlow, (torch.randn(2, 8), 2), True)
save("counter_scripted", Counter, (torch.randn(3, 4),), True)
save("interface_scripted", WithInterface, (torch.randn(2, 6),), True)
save("multi_method_scripted", MultiMethod, (torch.randn(2, 5),), True)
save("forks_scripted", Forks, (torch.randn(3, 4),), True)
save("containers_scripted", Containers, (torch.randn(1, 4),), True)
