#!/usr/bin/env python3
"""Builds the seed corpora of the fuzz targets from testdata/ into a scratch folder (never
committed: tests/fuzz/seeds/ keeps only a few small ones for the replay tests).

    python3 tests/fuzz/make_seeds.py OUT [--max-archive BYTES]

OUT/<target>/ gets one file per distinct seed, named by its SHA-1 as libFuzzer names its corpus:
  zip         archives, torch.save files, .npy/.npz files (models*, trace, hostile, io)
  load_print  TorchScript archives (models*, trace, hostile)
  run         the small TorchScript archives, each with an extra/fuzz_input_spec record holding
              the shapes of its own recorded inputs (read with /usr/bin/python3's torch when it is
              there; without it the target falls back to the schema's example values)
  unpickle    data.pkl, constants.pkl and .debug_pkl records, and torch.save pickles
  parser      code/**.py records
  debug_pkl   code/**.py.debug_pkl records
  type        type annotations found in the code records, and the types graphs print
  graph_text  graphs PyTorch printed (testdata/golden*/, passes/, ssa/, emitter/)
"""
import argparse
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"


class Corpus:
    def __init__(self, out: Path):
        self.out = out
        self.counts = {}

    def add(self, target: str, data: bytes, limit: int):
        if not data or len(data) > limit:
            return
        d = self.out / target
        d.mkdir(parents=True, exist_ok=True)
        p = d / hashlib.sha1(data).hexdigest()
        if not p.exists():
            p.write_bytes(data)
            self.counts[target] = self.counts.get(target, 0) + 1


def archives():
    dirs = sorted(TESTDATA.glob("models*")) + [TESTDATA / "trace", TESTDATA / "hostile", TESTDATA / "io"]
    for d in dirs:
        yield from sorted(p for p in d.rglob("*") if p.is_file() and p.suffix in (".pt", ".npy", ".npz", ".ptl"))


def records(path: Path):
    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                try:
                    yield info.filename, z.read(info)
                except Exception:
                    pass
    except Exception:
        return


def is_torchscript(path: Path) -> bool:
    names = [n for n, _ in records(path)]
    return any(n.endswith("/data.pkl") for n in names) and any("/code/" in n for n in names)


def balanced(text: str, i: int, stops: str) -> str:
    """text[i:] up to the first of `stops` outside brackets."""
    depth, j = 0, i
    while j < len(text):
        ch = text[j]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (ch in stops or text.startswith(" =", j)):
            break
        j += 1
    return text[i:j].strip()


def code_types(text: str):
    """Annotations of def signatures and class attributes (`  name : T`)."""
    for m in re.finditer(r"(?:\w\s*:\s*|->\s*)", text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        line = text[line_start:text.find("\n", m.end()) if "\n" in text[m.end():] else len(text)]
        if line.lstrip().startswith("def ") or re.match(r"^  \w+ : ", line):
            t = balanced(text, m.end(), ",\n:")
            if t:
                yield t


def graph_types(text: str):
    for m in re.finditer(r"%[\w.]+ : ", text):
        t = balanced(text, m.end(), ",\n")
        if t:
            yield t


INPUT_SPECS = r"""
import json, sys, torch
def spec(x):
    if isinstance(x, torch.Tensor):
        return '%s[%s]' % (str(x.dtype).replace('torch.', ''), ','.join(str(d) for d in x.shape))
    if isinstance(x, (tuple, list)):
        inner = ', '.join(spec(i) for i in x)
        return ('(%s,)' % inner if len(x) == 1 else '(%s)' % inner) if isinstance(x, tuple) else '[%s]' % inner
    if isinstance(x, dict):
        return '{%s}' % ', '.join('%r: %s' % (k, spec(i)) for k, i in x.items())
    if x is None: return 'none'
    if isinstance(x, bool): return 'true' if x else 'false'
    return repr(x)
out = {}
for path in sys.argv[1:]:
    try:
        v = torch.load(path)
        out[path] = ', '.join(spec(a) for a in (v if isinstance(v, tuple) else (v,)))
    except Exception:
        pass
print(json.dumps(out))
"""


def input_specs(paths):
    """The --input-spec text of torch.save files of arguments (tensors by dtype and shape), by
    path; empty without /usr/bin/python3's torch."""
    try:
        r = subprocess.run(["/usr/bin/python3", "-c", INPUT_SPECS] + [str(p) for p in paths],
                           capture_output=True, text=True, timeout=600)
        return json.loads(r.stdout) if r.returncode == 0 else {}
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {}


def with_record(path: Path, name: str, data: bytes) -> bytes:
    buf = io.BytesIO(path.read_bytes())
    with zipfile.ZipFile(buf, "a") as z:
        root = z.namelist()[0].split("/")[0]
        z.writestr(zipfile.ZipInfo(f"{root}/{name}"), data)
    return buf.getvalue()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--max-archive", type=int, default=65536, help="largest archive seed (the targets' -max_len)")
    args = ap.parse_args()
    c = Corpus(args.out)
    big = args.max_archive
    code_texts = []
    small_models = []
    for path in archives():
        data = path.read_bytes()
        c.add("zip", data, big)
        ts = is_torchscript(path)
        if ts:
            c.add("load_print", data, big)
        for name, rec in records(path):
            if name.endswith(".pkl") or name.endswith(".debug_pkl"):
                c.add("unpickle", rec, 16384)
            if name.endswith(".debug_pkl"):
                c.add("debug_pkl", rec, 16384)
            elif "/code/" in name and name.endswith(".py"):
                c.add("parser", rec, 16384)
                code_texts.append(rec.decode("utf-8", "replace"))
        # testdata/hostile/running's models run until a limit stops them, by design (a loop without
        # end, an 8000x8000 product): as run seeds each would cost the fuzzer its 5 s limit or end
        # the process; test_limits_cli.cpp runs them under --timeout instead.
        if ts and len(data) <= big and ".in" not in path.name and path.parent.name != "running":
            small_models.append(path)
    specs = input_specs([p.with_name(p.stem + ".in0.pt") for p in small_models if p.with_name(p.stem + ".in0.pt").exists()])
    for path in small_models:
        spec = specs.get(str(path.with_name(path.stem + ".in0.pt")))
        c.add("run", with_record(path, "extra/fuzz_input_spec", spec.encode()) if spec else path.read_bytes(), big + 4096)
    for text in code_texts:
        for t in code_types(text):
            c.add("type", t.encode(), 512)
    graphs = [p for p in TESTDATA.rglob("*.txt") if p.parent.parent.name.startswith("golden") or
              p.parent.name in ("passes", "ssa", "emitter", "freeze_passes")]
    for p in sorted(graphs):
        text = p.read_text(errors="replace")
        if not text.startswith("graph("):
            continue
        c.add("graph_text", text.encode(), 16384)
        for t in graph_types(text):
            c.add("type", t.encode(), 512)
    json.dump(c.counts, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
