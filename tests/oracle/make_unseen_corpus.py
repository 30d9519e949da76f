#!/usr/bin/python3
"""Writes archives nobody here has seen (torchvision models scripted and traced, RNNs, an encoder,
attention, a user-style scripted module) with one input set each, in the flat layout compat.py reads:
  /usr/bin/python3 tests/oracle/make_unseen_corpus.py /tmp/unseen
  /usr/bin/python3 ../shared/oracle/compat.py --jitctl build/cli/jitctl --models /tmp/unseen --checks run,code,optimize
Not run by the test suite (building torchvision models takes minutes); used for the acceptance notes."""
import os, sys

import torch, torchvision
torch.manual_seed(1)
out = (sys.argv[1] if len(sys.argv) > 1 else '/tmp/unseen') + '/'
os.makedirs(out, exist_ok=True)
tv = torchvision.models
def save(name, m, inputs, script):
    m = m.eval()
    try:
        sm = torch.jit.script(m) if script else torch.jit.trace(m, inputs)
        sm.save(out + name + '.pt'); torch.save(tuple(inputs), out + name + '.in0.pt')
        print('ok', name, flush=True)
    except Exception as e:
        print('skip', name, str(e).splitlines()[0][:100], flush=True)
x = (torch.randn(1,3,96,96),)
for n, f in [('resnet18', tv.resnet18), ('mobilenet_v2', tv.mobilenet_v2), ('mobilenet_v3_small', tv.mobilenet_v3_small),
             ('squeezenet1_0', tv.squeezenet1_0), ('shufflenet_v2_x1_0', tv.shufflenet_v2_x1_0), ('densenet121', tv.densenet121),
             ('mnasnet0_5', tv.mnasnet0_5), ('efficientnet_b0', tv.efficientnet_b0), ('regnet_x_400mf', tv.regnet_x_400mf),
             ('convnext_tiny', tv.convnext_tiny), ('resnext50', tv.resnext50_32x4d)]:
    for script in (True, False):
        save(f"{n}_{'s' if script else 't'}", f(), x, script)
save('googlenet_s', tv.googlenet(aux_logits=False, init_weights=True), x, True)
save('alexnet_t', tv.alexnet(), (torch.randn(1,3,96,96),), False)
save('vit_b_16_t', tv.vit_b_16(), (torch.randn(1,3,224,224),), False)
class RNNs(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.l = torch.nn.LSTM(16, 32, num_layers=2, bidirectional=True, batch_first=True); s.g = torch.nn.GRU(64, 8)
    def forward(s, x):
        y, (h, c) = s.l(x)
        z, hg = s.g(y)
        return z, h, c, hg
save('rnns_s', RNNs(), (torch.randn(3, 5, 16),), True)
save('rnns_t', RNNs(), (torch.randn(3, 5, 16),), False)
enc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True), 2)
save('encoder_s', enc, (torch.randn(2, 10, 64),), True)
class MHA(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.a = torch.nn.MultiheadAttention(32, 4)
    def forward(s, q, k):
        o, w = s.a(q, k, k)
        return o, w
save('mha_s', MHA(), (torch.randn(5, 2, 32), torch.randn(7, 2, 32)), True)
class User(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.c = torch.nn.Conv1d(4, 8, 3, padding=1); s.n = torch.nn.LayerNorm(8)
    def forward(s, x, k: int):
        outs = []
        for i in range(k):
            y = torch.relu(s.c(x)).transpose(1, 2)
            outs.append(s.n(y).mean(dim=1))
        d = {'a': torch.stack(outs), 'b': x.sum()}
        return d['a'] * 2.0 + d['b'], len(outs)
save('user_s', User(), (torch.randn(2, 4, 9), 3), True)
