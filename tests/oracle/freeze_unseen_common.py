"""What the held-out generators for `jitctl freeze`/`optimize` (make_freeze_unseen.py,
make_freeze_unseen2.py) share: the output folder from the command line, and writing one model
traced or scripted with trained-looking batch-norm statistics, in the flat layout compat.py reads."""
import os
import sys

import torch


def output_folder(default):
    """OUT (with a trailing slash) and ONLY (the names to write, or None) from sys.argv."""
    out = (sys.argv[1] if len(sys.argv) > 1 else default) + "/"
    only = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else None
    os.makedirs(out, exist_ok=True)
    return out, only


def randomize_norms(m):
    # Fresh BatchNorm layers have mean 0 / var 1 / weight 1 / bias 0, which folds to nothing
    # visible; give them statistics like a trained model's.
    for mod in m.modules():
        if isinstance(mod, torch.nn.modules.batchnorm._BatchNorm):
            mod.running_mean.uniform_(-0.5, 0.5)
            mod.running_var.uniform_(0.5, 2.0)
            if mod.affine:
                mod.weight.data.uniform_(0.5, 1.5)
                mod.bias.data.uniform_(-0.2, 0.2)
    return m


def saver(out, only):
    """save(name, make, inputs, script): NAME.pt and NAME.in0.pt, or a `skip` line naming why."""
    def save(name, make, inputs, script):
        if only and name not in only:
            return
        try:
            m = randomize_norms(make()).eval()
            sm = torch.jit.script(m) if script else torch.jit.trace(m, inputs, check_trace=False)
            sm.save(out + name + ".pt")
            torch.save(tuple(inputs), out + name + ".in0.pt")
            print("ok", name, flush=True)
        except Exception as e:  # a model this torch cannot script or trace is reported, not hidden
            print("skip", name, str(e).splitlines()[0][:120], flush=True)
    return save
