#!/usr/bin/python3
"""A second held-out set for `jitctl freeze` and `jitctl optimize`, disjoint from
make_freeze_unseen.py's (which was used while the passes were written): other torchvision CNNs,
traced and scripted (random weights, batch-norm statistics made non-trivial), transformer decoders
and attention, RNNs, scripted code with control flow, several methods, state the code changes, and
code with the checks, conversions and identities `jitctl optimize` removes. One input set each, in
the flat layout compat.py reads:

  /usr/bin/python3 tests/oracle/make_freeze_unseen2.py /tmp/freeze_unseen2
  /usr/bin/python3 ../shared/oracle/compat.py --jitctl build/cli/jitctl --models /tmp/freeze_unseen2 \\
      --checks freeze,optimize

Not run by the test suite (building and scripting the torchvision models takes minutes).
Optional second argument: a comma-separated list of names to write."""
import os
import sys
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from freeze_unseen_common import output_folder, saver  # noqa: E402

torch.manual_seed(23)
OUT, ONLY = output_folder("/tmp/freeze_unseen2")
save = saver(OUT, ONLY)
tv = torchvision.models


def both(name, make, inputs):
    for script in (True, False):
        save(f"{name}_{'scripted' if script else 'traced'}", make, inputs, script)


# ---- torchvision CNNs not in make_freeze_unseen.py
x = (torch.randn(1, 3, 64, 64),)
for n, f in [("resnet34", tv.resnet34), ("resnext50_32x4d", tv.resnext50_32x4d), ("mobilenet_v3_large", tv.mobilenet_v3_large),
             ("mnasnet1_0", tv.mnasnet1_0), ("regnet_y_400mf", tv.regnet_y_400mf), ("convnext_tiny", tv.convnext_tiny),
             ("shufflenet_v2_x0_5", tv.shufflenet_v2_x0_5), ("squeezenet1_1", tv.squeezenet1_1),
             ("efficientnet_b1", tv.efficientnet_b1)]:
    both(n, f, x)
save("googlenet_traced", lambda: tv.googlenet(aux_logits=False, init_weights=True), x, False)


# ---- attention and sequence models
class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.dec = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(32, 4, 64, batch_first=True), 2)

    def forward(self, tgt, memory):
        mask = torch.triu(torch.full((tgt.size(1), tgt.size(1)), float("-inf")), diagonal=1)
        return self.dec(tgt, memory, tgt_mask=mask)


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(24, 3, dropout=0.1)
        self.norm = torch.nn.LayerNorm(24)

    def forward(self, q, kv):
        out, weights = self.mha(q, kv, kv)
        return self.norm(out + q), weights


class TextClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 12, padding_idx=0)
        self.rnn = torch.nn.LSTM(12, 20, batch_first=True, bidirectional=True)
        self.head = torch.nn.Sequential(torch.nn.Dropout(0.3), torch.nn.Linear(40, 4))

    def forward(self, ids):
        y, (h, c) = self.rnn(self.emb(ids))
        return self.head(y.mean(1)), h


class Rnns(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.RNN(6, 10, num_layers=2, nonlinearity="relu")
        self.gru = torch.nn.GRU(10, 5, bidirectional=True)

    def forward(self, x):
        y, h = self.rnn(x)
        z, hg = self.gru(y)
        return z, h, hg


both("decoder", Decoder, (torch.randn(2, 5, 32), torch.randn(2, 7, 32)))
both("attention", Attention, (torch.randn(6, 2, 24), torch.randn(9, 2, 24)))
both("text_classifier", TextClassifier, (torch.randint(0, 50, (3, 11)),))
both("rnns", Rnns, (torch.randn(7, 2, 6),))
save("transformer_traced", lambda: torch.nn.Transformer(16, 2, 1, 1, 32), (torch.randn(5, 2, 16), torch.randn(4, 2, 16)),
     False)


# ---- scripted code freezing and optimizing must get right
class Loops(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(6, 6) for _ in range(3)])
        self.limit = 4.0
        self.names: List[str] = ["a", "b", "c"]

    def forward(self, x, steps: int):
        outs: Dict[str, torch.Tensor] = {}
        for i, layer in enumerate(self.layers):
            x = torch.tanh(layer(x))
            outs[self.names[i]] = x
        k = 0
        while k < steps:
            if bool(x.abs().max() > self.limit):
                break
            x = x * 1.5
            k += 1
        return x, [outs[n].sum() for n in self.names]


class EarlyExit(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(5, 5)
        self.threshold: Optional[float] = None

    def forward(self, x):
        y = self.fc(x)
        if self.threshold is None:
            return y
        return torch.clamp(y, max=self.threshold)


class Exported(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Conv1d(3, 6, 3, padding=1)
        self.bn = torch.nn.BatchNorm1d(6)
        self.dec = torch.nn.Conv1d(6, 3, 1)

    @torch.jit.export
    def encode(self, x):
        return F.relu(self.bn(self.enc(x)))

    @torch.jit.export
    def decode(self, z):
        return self.dec(z)

    def forward(self, x):
        return self.decode(self.encode(x))


class Stateful(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("ema", torch.zeros(3))
        self.seen = 0
        self.fc = torch.nn.Linear(3, 3)

    def forward(self, x):
        self.ema.mul_(0.9).add_(x.mean(0) * 0.1)
        self.seen += x.size(0)
        return self.fc(x - self.ema)


class Conversions(torch.nn.Module):
    # What jitctl optimize removes: rank checks after convs, conversions to the dtype a tensor has,
    # identities, a contiguous() of a contiguous tensor.
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.up = torch.nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.head = torch.nn.Linear(4, 2)

    def forward(self, x):
        y = F.relu(self.bn(self.conv(x)))
        if y.dim() not in [3, 4]:
            raise ValueError("expected an image")
        y = y.float() * 1.0 + 0
        y = self.up(y.to(torch.float32))
        z = y.mean([-1, -2]).contiguous().contiguous()
        if z.dtype == torch.float32:
            z = z / 1.0
        return self.head(z)


class BnHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Conv2d(3, 6, 3, stride=2), torch.nn.BatchNorm2d(6), torch.nn.ReLU6(),
                                        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten())
        self.head = torch.nn.Sequential(torch.nn.Linear(6, 12), torch.nn.BatchNorm1d(12), torch.nn.Hardswish(),
                                        torch.nn.Dropout(0.5), torch.nn.Linear(12, 3))

    def forward(self, x):
        return self.head(self.body(x))


save("loops_scripted", Loops, (torch.randn(2, 6), 3), True)
save("early_exit_scripted", EarlyExit, (torch.randn(4, 5),), True)
both("exported", Exported, (torch.randn(2, 3, 10),))
save("stateful_scripted", Stateful, (torch.randn(4, 3),), True)
both("conversions", Conversions, (torch.randn(2, 3, 8, 8),))
both("bn_head", BnHead, (torch.randn(4, 3, 16, 16),))
