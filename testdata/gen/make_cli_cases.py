#!/usr/bin/python3
"""Files for the command-line tests of jitctl (tests/corpus/test_cli.cpp, tests/oracle/check_run_specs.py),
written by Debian's PyTorch 1.13 (/usr/bin/python3).

Writes testdata/cli/:
  arg_kinds_scripted.pt   a scripted module whose methods take every argument kind --input-spec can
                          write: ints, floats, bools, strings, None, tuples, lists, dicts, tensors
  specs.json              [{"model", "method", "specs": [...], "output": "specs/K.pt"}]: methods whose
                          arguments are not tensors, called with the values of the --input-spec strings
                          (written in Python's literal syntax, which the spec grammar accepts); output
                          is torch.save(method(*values)) -- what `jitctl run --input-spec ...` must give
  wrong/                  files users give jitctl by mistake, each of which jitctl must recognize and
                          name with the fix:
    state_dict.pt          torch.save(model.state_dict())
    pickled_module.pt      torch.save(model) of an eager module whose class is in __main__
    pickled_sequential.pt  torch.save(nn.Sequential(...)): the class is torch's own
    legacy_tensor.pt       torch.save(x, _use_new_zipfile_serialization=False): pre-1.6 format
    lite.ptl               _save_for_lite_interpreter (a zip that is also a TorchScript archive)
    lite_flatbuffer.ptl    _save_for_lite_interpreter(_use_flatbuffer=True): PyTorch Mobile flatbuffer
    model.onnx             torch.onnx.export
    exported.pt2           torch.export.save's PT2 archive layout (PyTorch >= 2.6): made by hand here,
                           since PyTorch 1.13 has no torch.export; the entry names follow
                           torch/export/pt2_archive/constants.py (archive_format = "pt2", models/*.json,
                           data/weights/)
    exported_v1.pt2        torch.export.save's first layout (PyTorch 2.1-2.5): top-level
                           serialized_exported_program.json, serialized_state_dict.pt, version; by hand
    weights.safetensors    a safetensors file (8-byte header length, JSON header), by hand
    text.txt, empty.pt     not a model at all
Run: /usr/bin/python3 testdata/gen/make_cli_cases.py  (cwd: anywhere). Output is byte-identical each run
except wrong/legacy_tensor.pt, whose pre-1.6 format keys storages by Python object ids.
"""
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import zipfile
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(REPO, "testdata", "cli")


class ArgKinds(nn.Module):
    """Every argument kind of a TorchScript method signature that --input-spec writes."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor([2.0]))

    def forward(self, x: Tensor, n: int, alpha: float, flag: bool) -> Tensor:
        y = x * alpha + n
        if flag:
            y = y * self.scale
        return y

    @torch.jit.export
    def scalars(self, n: int, alpha: float, flag: bool, name: str, maybe: Optional[int] = None) -> Tuple[float, str, bool, int]:
        k = maybe if maybe is not None else -1
        suffix = ""
        for _ in range(n):
            suffix += "!"
        return n * alpha, name + suffix, not flag, k

    @torch.jit.export
    def containers(self, pair: Tuple[int, str], dims: List[int], table: Dict[str, float],
                   nested: List[Tuple[int, float]]) -> Dict[str, float]:
        out: Dict[str, float] = {}
        for key, value in table.items():
            out[key + pair[1]] = value * pair[0]
        out["dims"] = float(sum(dims))
        total = 0.0
        for i, f in nested:
            total += i * f
        out["nested"] = total
        return out

    @torch.jit.export
    def optional_none(self, a: Optional[str], b: Optional[List[int]]) -> str:
        if a is None:
            return "no a" if b is None else "b has " + str(len(b))
        return a

    @torch.jit.export
    def tensors(self, pair: Tuple[Tensor, Tensor], many: List[Tensor], named: Dict[str, Tensor],
                extra: Optional[Tensor]) -> Tuple[Tensor, Dict[str, Tensor]]:
        s = pair[0].sum() + pair[1].sum()
        for t in many:
            s = s + t.sum()
        if extra is not None:
            s = s + extra.sum()
        doubled: Dict[str, Tensor] = {}
        for k, v in named.items():
            doubled[k] = v * 2
        return s, doubled

    @torch.jit.export
    def receiver_renamed(me, n: int, alpha: float) -> float:  # noqa: N805 -- Python allows any name
        return float(me.scale) * alpha + n

    @torch.jit.export
    def mismatch(self, x: Tensor, w: Tensor) -> Tensor:
        h = torch.relu(x)
        return torch.mm(h, w)


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


# Methods whose arguments are not tensors, and the spec strings that call them (Python literals).
SPEC_CASES = [
    ("cli/arg_kinds_scripted.pt", "scalars", ["3", "0.5", "True", "'ab'"]),
    ("cli/arg_kinds_scripted.pt", "scalars", ["2", "1", "false", "\"x y\"", "7"]),
    ("cli/arg_kinds_scripted.pt", "scalars", ["1, 2.5, true, 'a', None"]),
    ("cli/arg_kinds_scripted.pt", "containers", ["(3, '_k')", "[1, 2, 3]", "{'a': 1.5, 'b': -2}", "[(1, 0.5), (2, 0.25)]"]),
    ("cli/arg_kinds_scripted.pt", "containers", ["(0, '')", "[]", "{}", "[]"]),
    ("cli/arg_kinds_scripted.pt", "optional_none", ["None", "None"]),
    ("cli/arg_kinds_scripted.pt", "optional_none", ["none", "[1, 2]"]),
    ("cli/arg_kinds_scripted.pt", "optional_none", ["'given'", "None"]),
    ("cli/arg_kinds_scripted.pt", "receiver_renamed", ["3", "0.25"]),
    ("models/exports_scripted.pt", "describe", ["'features: '"]),
    ("models/exports_scripted.pt", "num_features", []),
    ("models/getstate_scripted.pt", "__getstate__", []),
    ("interpreter/stateful.pt", "forward", ["4", "'key'"]),
    ("interpreter/with_print.pt", "forward", ["5"]),
    ("emitter/delete.pt", "forward", ["[1, 2, 3]", "{'a': 1, 'b': 2}"]),
    ("emitter/script_class.pt", "forward", ["3"]),
]


def spec_values(spec):
    """The Python values of one spec string: comma-separated literals; true/false/none as Python's."""
    import ast
    import tokenize
    # Map the lowercase words outside strings; the spec grammar accepts both spellings.
    toks = []
    for tok in tokenize.generate_tokens(io.StringIO(spec).readline):
        if tok.type == tokenize.NAME and tok.string in ("true", "false", "none"):
            toks.append((tok.type, {"true": "True", "false": "False", "none": "None"}[tok.string]))
        else:
            toks.append((tok.type, tok.string))
    text = tokenize.untokenize(toks)
    value = ast.literal_eval("(" + text + ",)")
    return list(value)


def write_zip(path, entries):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            z.writestr(info, data)


def torch_save_bytes(obj):
    b = io.BytesIO()
    torch.save(obj, b)
    return b.getvalue()


def make_wrong_files(wrong):
    torch.manual_seed(0)
    net = TinyNet().eval()
    torch.save(net.state_dict(), os.path.join(wrong, "state_dict.pt"))
    torch.save(net, os.path.join(wrong, "pickled_module.pt"))
    torch.save(nn.Sequential(nn.Linear(2, 2), nn.ReLU()), os.path.join(wrong, "pickled_sequential.pt"))
    torch.save((torch.arange(4.0),), os.path.join(wrong, "legacy_tensor.pt"), _use_new_zipfile_serialization=False)
    scripted = torch.jit.script(net)
    scripted._save_for_lite_interpreter(os.path.join(wrong, "lite.ptl"))
    scripted._save_for_lite_interpreter(os.path.join(wrong, "lite_flatbuffer.ptl"), _use_flatbuffer=True)
    torch.onnx.export(net, (torch.zeros(1, 4),), os.path.join(wrong, "model.onnx"))

    program = json.dumps({"graph_module": {"graph": {"nodes": []}}, "schema_version": {"major": 8, "minor": 0}}).encode()
    weights = torch_save_bytes(net.state_dict())
    write_zip(os.path.join(wrong, "exported.pt2"), [
        ("archive/archive_format", b"pt2"),
        ("archive/byteorder", b"little"),
        ("archive/version", b"0"),
        ("archive/models/model.json", program),
        ("archive/data/weights/model_weights_config.json", b"{}"),
        ("archive/data/weights/weight_0", net.fc.weight.detach().numpy().tobytes()),
    ])
    write_zip(os.path.join(wrong, "exported_v1.pt2"), [
        ("serialized_exported_program.json", program),
        ("serialized_state_dict.pt", weights),
        ("serialized_constants.pt", torch_save_bytes({})),
        ("version", b"5.1"),
    ])
    header = json.dumps({"fc.weight": {"dtype": "F32", "shape": [3, 4], "data_offsets": [0, 48]}}).encode()
    with open(os.path.join(wrong, "weights.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + net.fc.weight.detach().numpy().tobytes())
    with open(os.path.join(wrong, "text.txt"), "w") as f:
        f.write("not a model\n")
    open(os.path.join(wrong, "empty.pt"), "wb").close()


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(os.path.join(OUT, "wrong"))
    os.makedirs(os.path.join(OUT, "specs"))
    torch.manual_seed(0)
    torch.jit.script(ArgKinds()).save(os.path.join(OUT, "arg_kinds_scripted.pt"))
    make_wrong_files(os.path.join(OUT, "wrong"))

    cases = []
    for k, (model, method, specs) in enumerate(SPEC_CASES):
        m = torch.jit.load(os.path.join(REPO, "testdata", model))
        values = [v for s in specs for v in spec_values(s)]
        with torch.no_grad():
            out = m._c._get_method(method)(*values)  # __getstate__ too, not Python's
        name = f"specs/{k}.pt"
        torch.save(out, os.path.join(OUT, name))
        cases.append({"model": model, "method": method, "specs": specs, "output": name})
    with open(os.path.join(OUT, "specs.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        main()
    else:
        # Compiled under its repo-relative name (cwd = repo root), so that the source locations the
        # archive records do not depend on the checkout path.
        rel = os.path.relpath(os.path.abspath(__file__), REPO)
        child = ("import sys, types\n"
                 "m = types.ModuleType('__main__'); m.__file__ = sys.argv[1]; sys.modules['__main__'] = m\n"
                 "sys.argv = [sys.argv[1], '--child']\n"
                 "exec(compile(open(sys.argv[0]).read(), sys.argv[0], 'exec'), m.__dict__)")
        env = dict(os.environ, PYTHONHASHSEED="0")
        sys.exit(subprocess.call([sys.executable, "-c", child, rel], cwd=REPO, env=env))
