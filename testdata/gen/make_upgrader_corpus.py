#!/usr/bin/python3
"""Archives as PyTorch before 1.13 wrote them, and what PyTorch 1.13 makes of them (its upgraders).

PyTorch records in every archive the operator version its code was written against (`version`, or
`.data/version` from 6 on). Loading an archive older than an operator's last change, PyTorch 1.13
matches the call also against the operator's old schema and replaces the node by an "upgrader"
(a TorchScript function giving the old meaning: integer `div` truncated before version 4, `full`
with an integer fill made a float tensor before 5, `linspace`/`logspace` without `steps` meant 100
before 8/9, `gelu` had no `approximate` before 10).

No wheel of a PyTorch that old installs here (they need Python <= 3.8 and old glibc), so each
archive is written by Debian's 1.13 and then edited to what the old writer produced: its version
record set back, and calls whose old form differs written in that form (`torch.linspace(0, 1)`).
PyTorch 1.13's own answers for the edited archive are the goldens.

Writes (run with Debian's PyTorch: /usr/bin/python3 testdata/gen/make_upgrader_corpus.py):
    testdata/upgraders/version_map.txt   OPERATOR<TAB>BUMPED_AT<TAB>UPGRADER<TAB>OLD_SCHEMA, one per line
    testdata/upgraders/upgraders.txt     str(graph) of each upgrader (torch._C._generate_upgraders_graph()),
                                         each after a line `# NAME`
    testdata/models_old/NAME.pt, NAME.in{i}.pt, manifest.json
    testdata/golden_old/NAME/{info.json, graph.txt, code.txt, out{i}.pt}
"""
import json
import os
import shutil
import subprocess
import sys
import zipfile
from typing import Tuple

import torch
import torch.nn.functional as F
from torch import Tensor

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.normpath(os.path.join(HERE, ".."))
REPO = os.path.dirname(TESTDATA)
SELF = os.path.relpath(os.path.abspath(__file__), REPO)
MODELS = os.path.join(TESTDATA, "models_old")
GOLDEN = os.path.join(TESTDATA, "golden_old")
UPGRADERS = os.path.join(TESTDATA, "upgraders")


class DivOld(torch.nn.Module):
    def forward(self, a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        c = torch.div(a, b)
        d = a / 2
        e = a.clone()
        e.div_(b)
        return c, d, e


class FullOld(torch.nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        return torch.full([2, 3], 7), torch.full([2], 1.5) + x, torch.full([2], 2, dtype=torch.int64)


class SpaceOld(torch.nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
        return torch.linspace(0, 1, 5) + x.sum(), torch.logspace(0, 2, 5)


class GeluOld(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        return F.gelu(x) * 2


class MixedOld(torch.nn.Module):
    def forward(self, a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        return a // b + torch.div(a, b), torch.full([3], 4), torch.linspace(-1, 1, 5)


ints = (torch.tensor([7, -7, 9, 3]), torch.tensor([2, 2, -4, 3]))
floats = (torch.tensor([7.0, -7.0, 9.0, 3.0]), torch.tensor([2.0, 2.0, -4.0, 3.0]))
# name: (module, old version, [(text in code, what the old writer wrote)], input sets)
CASES = {
    "div_v3": (DivOld, 3, [], [ints, floats]),
    "full_v4": (FullOld, 4, [], [(torch.ones(2),)]),
    "linspace_v7": (SpaceOld, 7, [("torch.linspace(0, 1, 5)", "torch.linspace(0, 1)")], [(torch.ones(3),)]),
    "logspace_v8": (SpaceOld, 8, [("torch.logspace(0, 2, 5)", "torch.logspace(0, 2)")], [(torch.ones(3),)]),
    "gelu_v9": (GeluOld, 9, [], [(torch.randn(5),)]),
    "mixed_v3": (MixedOld, 3, [("torch.linspace(-1, 1, 5)", "torch.linspace(-1, 1)")], [ints]),
}


def rewrite(src, dst, version, subs):
    with zipfile.ZipFile(src) as zi:
        root = zi.namelist()[0].split("/")[0]
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zo:
            for info in zi.infolist():
                if info.filename in (f"{root}/version", f"{root}/.data/version"):
                    continue
                data = zi.read(info.filename)
                if info.filename.endswith(".py"):
                    text = data.decode()
                    for old, new in subs:
                        assert old in text, (dst, old)
                        text = text.replace(old, new)
                    data = text.encode()
                zo.writestr(info, data)
            zo.writestr(f"{root}/version" if version < 6 else f"{root}/.data/version", f"{version}\n")


def child(name):
    cls, version, subs, inputs = CASES[name]
    tmp_dir = os.path.join(MODELS, "tmp." + name)  # the archive's root folder is its file's stem
    os.makedirs(tmp_dir)
    tmp = os.path.join(tmp_dir, name + ".pt")
    torch.jit.save(torch.jit.script(cls()), tmp)
    path = os.path.join(MODELS, name + ".pt")
    rewrite(tmp, path, version, subs)
    shutil.rmtree(tmp_dir)
    m = torch.jit.load(path)
    out = os.path.join(GOLDEN, name)
    os.makedirs(out, exist_ok=True)
    with zipfile.ZipFile(path) as z:
        root = z.namelist()[0].split("/")[0]
    info = {"format_version": version, "root": root, "class": m._c._type().qualified_name(),
            "methods": sorted(m._c._method_names()), "parameters": [], "buffers": [], "extra_files": [],
            "total_parameters": 0, "total_bytes": 0}
    with open(os.path.join(out, "info.json"), "w") as f:
        f.write(json.dumps(info, indent=1) + "\n")
    with open(os.path.join(out, "graph.txt"), "w") as f:
        f.write(str(m.graph))
    with open(os.path.join(out, "code.txt"), "w") as f:
        f.write(m.code)
    for i, args in enumerate(inputs):
        torch.save(args, os.path.join(MODELS, f"{name}.in{i}.pt"))
        with torch.no_grad():
            torch.save(m(*[a.clone() for a in args]), os.path.join(out, f"out{i}.pt"))


def dump_upgraders():
    shutil.rmtree(UPGRADERS, ignore_errors=True)
    os.makedirs(UPGRADERS)
    rows = []
    for op, entries in sorted(torch._C._get_operator_version_map().items()):
        for e in entries:
            rows.append(f"{op}\t{e.bumped_at_version}\t{e.upgrader_name}\t{e.old_schema}\n")
    with open(os.path.join(UPGRADERS, "version_map.txt"), "w") as f:
        f.writelines(rows)
    with open(os.path.join(UPGRADERS, "upgraders.txt"), "w") as f:
        for name, graph in sorted(torch._C._generate_upgraders_graph().items()):
            f.write(f"# {name}\n{graph}")


CHILD = """import sys, types
sys.argv = sys.argv[1:]
m = types.ModuleType("__main__"); m.__file__ = sys.argv[0]; sys.modules["__main__"] = m
exec(compile(open(sys.argv[0]).read(), sys.argv[0], "exec"), m.__dict__)"""


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return
    dump_upgraders()
    shutil.rmtree(MODELS, ignore_errors=True)
    shutil.rmtree(GOLDEN, ignore_errors=True)
    os.makedirs(MODELS)
    os.makedirs(GOLDEN)
    env = dict(os.environ, PYTHONHASHSEED="0")
    manifest = {}
    for name, (cls, version, subs, _) in CASES.items():
        subprocess.run([sys.executable, "-c", CHILD, SELF, "--child", name], check=True, cwd=REPO, env=env)
        manifest[name] = {"kind": "scripted", "version": version, "edits": [f"{a} -> {b}" for a, b in subs],
                          "written_by": torch.__version__ + " (version record and code edited)"}
        print("ok", name)
    with open(os.path.join(MODELS, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
