"""Writes archives nobody here has seen, with whichever PyTorch 2.x runs it (torchvision CNNs and a tiny
ViT traced and scripted, transformer encoders slow and fast path, MultiheadAttention with masks,
LSTM/GRU, scaled_dot_product_attention in a user module, control flow, statistics), two input
sets each, in the flat layout compat.py reads. The acceptance measurement of issue 17:

    /work/venv-torch2.4/bin/pip install --no-deps torchvision==0.19.1 pillow   # torch 2.4.1's
    /work/venv-torch2.4/bin/python tests/oracle/make_unseen_torch2.py /tmp/unseen24
    JITCTL_TORCH_VERSION=2.4 /work/venv-torch2.4/bin/python ../shared/oracle/compat.py \
        --jitctl build/cli/jitctl --models /tmp/unseen24 --checks load,graph,code,run

(2.15: torchvision 0.29.2 with --no-deps; 2.0: 0.15.2 and `requests`.) compat.py compares with the
torch that runs it, so run it with the writer's python. Not run by the test suite.
"""
import json, os, sys, warnings
import torch, torch.nn as nn, torch.nn.functional as F
import torchvision
from typing import List, Dict, Tuple, Optional
from torch import Tensor
warnings.simplefilter("ignore")
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
torch.manual_seed(1234)

class Ctl(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)
        self.names = ["a", "b", "c"]
    def forward(self, x: Tensor, k: int) -> Tuple[Dict[str, Tensor], List[float], Tensor]:
        out: Dict[str, Tensor] = {}
        vals: List[float] = []
        h = x
        for i, n in enumerate(self.names):
            if i >= k:
                break
            h = torch.tanh(self.proj(h)) + h.std(0, keepdim=True)
            out[n + str(i)] = h.var(dim=1)
            vals.append(float(h.mean()))
        j = 0
        while j < 2:
            h = torch.where(h > 0, h, h * 0.1)
            j += 1
        top = torch.topk(h, 2, dim=1).values
        return out, vals, top

class Stats2(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        m = x.median(dim=-1).values
        q = torch.quantile(x, torch.tensor([0.2, 0.8]), dim=0)
        sm = torch.std_mean(x, 0, unbiased=False)
        nz = torch.nonzero(x > 1.0)
        idx = torch.argsort(x[:, 0])
        return m, q, sm[0], nz, x.index_select(0, idx)

class SDPAUser(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8); self.kv = nn.Linear(8, 16)
    def forward(self, x: Tensor, mem: Tensor, keep: Tensor) -> Tuple[Tensor, Tensor]:
        q = self.q(x).view(x.size(0), x.size(1), 2, 4).transpose(1, 2)
        k, v = self.kv(mem).view(mem.size(0), mem.size(1), 2, 8).transpose(1, 2).chunk(2, dim=-1)
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=keep.unsqueeze(1))
        b = F.scaled_dot_product_attention(q, q, q, is_causal=True, scale=0.5)
        return a.transpose(1, 2).flatten(2), b

class MHAUser(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(12, 3)
    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        y, _ = self.mha(x, x, x, attn_mask=mask, need_weights=False)
        return y

class RNNs(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 7, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(14, 4, num_layers=2)
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
        y, _ = self.lstm(x)
        z, h = self.gru(y.transpose(0, 1))
        return z, h

def vit():
    return torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=10)

def enc(norm_first, act):
    l = nn.TransformerEncoderLayer(24, 4, 48, dropout=0.0, activation=act, norm_first=norm_first, batch_first=True)
    return nn.TransformerEncoder(l, 2, enable_nested_tensor=False)

img = lambda n, s=32: (torch.randn(n, 3, s, s),)
CASES = [
    ("resnet18_traced", "trace", lambda: torchvision.models.resnet18(num_classes=10), [img(1), img(2)], False),
    ("mobilenet_v3_small_scripted", "script", lambda: torchvision.models.mobilenet_v3_small(num_classes=10), [img(1), img(2)], False),
    ("mobilenet_v3_small_traced", "trace", lambda: torchvision.models.mobilenet_v3_small(num_classes=10), [img(1), img(2)], False),
    ("squeezenet_scripted", "script", lambda: torchvision.models.squeezenet1_1(num_classes=10), [img(1, 64), img(2, 64)], False),
    ("shufflenet_traced", "trace", lambda: torchvision.models.shufflenet_v2_x0_5(num_classes=10), [img(1), img(2)], False),
    ("efficientnet_b0_traced", "trace", lambda: torchvision.models.efficientnet_b0(num_classes=10), [img(1), img(2)], False),
    ("regnet_scripted", "script", lambda: torchvision.models.regnet_y_400mf(num_classes=10), [img(1), img(2)], False),
    ("vit_tiny_scripted", "script", vit, [img(1), img(2)], False),
    ("vit_tiny_traced", "trace", vit, [img(1), img(2)], True),
    ("encoder_fast_traced", "trace", lambda: enc(False, "relu"), [(torch.randn(2, 6, 24),), (torch.randn(1, 3, 24),)], True),
    ("encoder_normfirst_gelu_traced", "trace", lambda: enc(True, "gelu"), [(torch.randn(2, 6, 24),), (torch.randn(1, 3, 24),)], False),
    ("encoder_scripted", "script", lambda: enc(False, "gelu"), [(torch.randn(2, 6, 24),), (torch.randn(1, 3, 24),)], False),
    ("mha_user_scripted", "script", MHAUser, [(torch.randn(4, 2, 12), torch.zeros(4, 4).masked_fill(torch.triu(torch.ones(4, 4, dtype=torch.bool), 1), float("-inf"))),
                                              (torch.randn(3, 1, 12), torch.zeros(3, 3))], False),
    ("rnns_scripted", "script", RNNs, [(torch.randn(2, 4, 5),), (torch.randn(1, 6, 5),)], False),
    ("rnns_traced", "trace", RNNs, [(torch.randn(2, 4, 5),), (torch.randn(2, 4, 5),)], False),
    ("sdpa_user_scripted", "script", SDPAUser, [(torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.rand(2, 3, 5) > 0.2),
                                                (torch.randn(1, 4, 8), torch.randn(1, 2, 8), torch.ones(1, 4, 2, dtype=torch.bool))], False),
    ("sdpa_user_traced", "trace", SDPAUser, [(torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.rand(2, 3, 5) > 0.2),
                                             (torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.ones(2, 3, 5, dtype=torch.bool))], False),
    ("control_scripted", "script", Ctl, [(torch.randn(3, 6), 2), (torch.randn(2, 6), 5)], False),
    ("stats_scripted", "script", Stats2, [(torch.randn(5, 4),), (torch.randn(7, 3) * 2,)], False),
]
manifest = {}
for name, how, build, inputs, no_grad in CASES:
    try:
        m = build().eval()
        with torch.set_grad_enabled(not no_grad):
            sm = torch.jit.trace(m, inputs[0], check_trace=False) if how == "trace" else torch.jit.script(m)
        p = os.path.join(OUT, name + ".pt")
        torch.jit.save(sm, p)
        for i, a in enumerate(inputs):
            torch.save(a, os.path.join(OUT, f"{name}.in{i}.pt"))
        manifest[name] = {"kind": "traced" if how == "trace" else "scripted", "written_by": torch.__version__}
        print("ok", name, flush=True)
    except Exception as e:
        print("FAIL", name, type(e).__name__, str(e)[:200], flush=True)
json.dump(manifest, open(os.path.join(OUT, "manifest.json"), "w"), indent=1)
