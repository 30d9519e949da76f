#!/usr/bin/python3
"""Two archives for measuring fork/wait concurrency: fork2.pt runs two independent branches (eight
512x512 Linear layers each) through torch.jit.fork/wait; seq2.pt calls the same branches one after
the other. Compare at one intra-op thread:
  /usr/bin/python3 tests/bench/make_fork_models.py /tmp/forkbench
  jitctl bench-threads /tmp/forkbench/seq2.pt  --inputs /tmp/forkbench/fork2.in0.pt --threads 1 --interop-threads 2
  jitctl bench-threads /tmp/forkbench/fork2.pt --inputs /tmp/forkbench/fork2.in0.pt --threads 1 --interop-threads 1,2
"""
import os
import sys

import torch


class Branch(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Sequential(*[torch.nn.Linear(512, 512) for _ in range(8)])

    def forward(self, x):
        return self.l(x)


class Forked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = Branch(), Branch()

    def forward(self, x):
        fa = torch.jit.fork(self.a, x)
        fb = torch.jit.fork(self.b, x)
        return torch.jit.wait(fa) + torch.jit.wait(fb)


class Sequential(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = Branch(), Branch()

    def forward(self, x):
        return self.a(x) + self.b(x)


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/forkbench"
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    torch.jit.script(Forked().eval()).save(os.path.join(out, "fork2.pt"))
    torch.jit.script(Sequential().eval()).save(os.path.join(out, "seq2.pt"))
    torch.save((torch.randn(256, 512),), os.path.join(out, "fork2.in0.pt"))
