"""How the saved-trace checks (check_saved_trace.py, check_trace_unseen.py) compare a saved trace
with its model when the model may sample (random ops, dropout in training mode)."""
import torch


def seeded_outputs(model, saved, inputs):
    """(want, again, got): the model under seeds 1 and 2, the saved trace under seed 1. `want`
    equal to `again` means the outputs do not depend on the samples, and `got` must then match;
    otherwise the trace is only required to run. Unseeded, a sampling model can agree with itself
    by chance (two calls of x[randperm(6)]: 1 in 720) and then be held to a third sample."""
    with torch.no_grad():
        torch.manual_seed(1)
        want = model(*inputs)
        torch.manual_seed(2)
        again = model(*inputs)
        torch.manual_seed(1)
        got = saved(*inputs)
    return want, again, got
