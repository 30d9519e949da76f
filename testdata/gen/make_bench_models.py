#!/usr/bin/python3
"""testdata/bench/: models for `jitctl bench-threads` tests that the corpus does not cover.

counter_scripted.pt: a scripted module whose forward writes its own state (an int attribute,
`self.calls += 1`, and a buffer updated in place), so concurrent callers must not share one
instance; forward returns (calls, total) so a test can count each instance's calls.
counter_scripted.in0.pt: its input, torch.ones(3).

Run: /usr/bin/python3 testdata/gen/make_bench_models.py (Debian's torch 1.13)."""
import os
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench")


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.register_buffer("total", torch.zeros(1))

    def forward(self, x):
        self.calls += 1
        self.total.add_(x.sum())
        return (self.calls, self.total)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    m = torch.jit.script(Counter().eval())
    torch.jit.save(m, os.path.join(OUT, "counter_scripted.pt"))
    torch.save(torch.ones(3), os.path.join(OUT, "counter_scripted.in0.pt"))
    loaded = torch.jit.load(os.path.join(OUT, "counter_scripted.pt"))
    assert loaded(torch.ones(3))[0] == 1


if __name__ == "__main__":
    main()
