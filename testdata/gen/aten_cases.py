"""What the kernel-golden generators share: every aten schema of the running PyTorch by its full
name, a call through torch.ops.aten with the arguments in schema order, and the case record that
tests/unit/test_kernels_tensor.cpp reads ({op, args, outs | error, alias[, base, base_after]})."""
import copy

import torch

TORCH2 = int(torch.__version__.split(".")[0]) >= 2
SCHEMAS = {}
for s in torch._C._jit_get_all_schemas():
    SCHEMAS[s.name + ("." + s.overload_name if s.overload_name else "")] = s
CASES = []


def call(op, args):
    s = SCHEMAS[op]
    base, _, overload = op[len("aten::"):].partition(".")
    fn = getattr(getattr(torch.ops.aten, base), overload or "default")
    assert len(s.arguments) == len(args), (op, len(s.arguments), len(args))
    pos = [a for spec, a in zip(s.arguments, args) if not spec.kwarg_only]
    kws = {spec.name: a for spec, a in zip(s.arguments, args) if spec.kwarg_only}
    return fn(*pos, **kws)


def storage_ptr(t):
    return t.untyped_storage().data_ptr() if TORCH2 else t.storage().data_ptr()


def shares(a, b):
    return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and storage_ptr(a) == storage_ptr(b)


def case(op, *args, base=None):
    """One case; `base`: the tensor `args[0]` is a view of, recorded before and after the call."""
    saved_args, saved_base = copy.deepcopy((list(args), base))
    entry = {"op": op, "args": saved_args}
    try:
        out = call(op, list(args))
    except Exception as e:  # PyTorch rejects it: the kernel must too
        entry["error"] = str(e).split("\n")[0][:60]
        CASES.append(entry)
        return
    outs = list(out) if isinstance(out, tuple) else [out]
    entry["outs"] = outs
    entry["alias"] = bool(args) and shares(outs[0], args[0])
    if base is not None:
        entry["base"] = saved_base
        entry["base_after"] = base
    CASES.append(entry)
