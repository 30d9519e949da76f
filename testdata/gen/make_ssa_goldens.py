#!/usr/bin/python3
"""Capture PyTorch 1.13's graphs around ConvertToSSA, the ground truth for jitctl's SSA passes.

Run with Debian's PyTorch (the `python3` on PATH has no torch); needs gdb:

    /usr/bin/python3 testdata/gen/make_ssa_goldens.py          # all cases (rewrites testdata/ssa/)
    /usr/bin/python3 testdata/gen/make_ssa_goldens.py --list   # case names

For each case it writes
    testdata/ssa/NAME.in.txt   the graph as the emitter leaves it (Stores, Loads, ReturnStmt, the output
                               placeholder), dumped on entry to ReplaceOldOperatorsWithUpgraders
    testdata/ssa/NAME.out.txt  the graph after all of ConvertToSSA, dumped on entry to
                               CanonicalizeModifiedLoops
Both are Graph::dump() text, `# file:line:col` comments included, so they agree with each other.

Nothing at the Python level shows these stages, so the graphs come from breakpoints: gdb stops on
the pass entry points that libtorch_cpu.so exports and calls Graph::dump() on the pass's argument
(lib/frontend/EMITTER_NOTES.md, section 0).

Cases:
- `cu_*`: one TorchScript function each, compiled with torch.jit.CompilationUnit (source locations
  print as `<string>:L:C`). Such source may use break, continue, early returns and `with`, which
  printed archive code never does.
- `mod_*`: methods of modules scripted from the sources in MODULE_SOURCES, saved, then loaded: what
  gets compiled is PyTorch's printed code, as jitctl will compile it.
- `corpus_*`: methods of corpus archives (testdata/models) as torch.jit.load compiles them, numbered
  in compile order; rerun this script after make_corpus.py rewrites the archives.
"""
import argparse
import os
import re
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
OUT_DIR = os.path.join(REPO, "testdata", "ssa")
MODELS_DIR = os.path.join(REPO, "testdata", "models")
TORCH_PYTHON = "/usr/bin/python3"

# ------------------------------------------------------------------------------------------------
# Cases
# ------------------------------------------------------------------------------------------------

CU_CASES = {
    "cu_straight_line": """
def f(x: Tensor, y: Tensor) -> Tensor:
    z = x + y
    z = z * 2
    w = torch.relu(z)
    return w
""",
    "cu_unused_param": """
def f(x: int, y: int) -> int:
    return 3
""",
    "cu_if_both": """
def f(x: int) -> int:
    if x > 0:
        y = x + 1
    else:
        y = x - 1
    return y
""",
    "cu_if_one_branch": """
def f(x: Tensor, c: bool) -> Tensor:
    y = x
    if c:
        y = y * 2
    return y
""",
    "cu_if_local_only": """
def f(x: int) -> int:
    if x > 3:
        t = x * 2
        x = t + 1
    else:
        u = x - 1
    return x
""",
    "cu_if_elif_else": """
def f(x: int, y: int) -> Tuple[int, int]:
    a = 0
    b = 1
    if x > y:
        a = x
    elif x == y:
        a = y
        b = x
    else:
        b = y
    return a, b
""",
    "cu_nested_if": """
def f(x: int, y: int) -> int:
    r = 0
    if x > 0:
        if y > 0:
            r = x + y
        else:
            r = x - y
        s = r * 2
        r = s
    else:
        if y > 0:
            r = y
    return r
""",
    "cu_optional_unify": """
def f(x: int) -> Optional[int]:
    y: Optional[int] = None
    if x > 0:
        y = x
    return y
""",
    "cu_for_range": """
def f(n: int) -> int:
    acc = 0
    for i in range(n):
        acc = acc + i
    return acc
""",
    "cu_while_loop": """
def f(x: Tensor, n: int) -> Tensor:
    i = 0
    y = x
    while i < n:
        y = y * 2
        i += 1
    return y
""",
    "cu_for_list": """
def f(xs: List[Tensor]) -> Tensor:
    s = torch.zeros(1)
    for v in xs:
        s = s + v
    return s
""",
    "cu_loop_local_var": """
def f(n: int) -> int:
    total = 0
    for i in range(n):
        sq = i * i
        total = total + sq
    return total
""",
    "cu_nested_loops": """
def f(n: int, m: int) -> int:
    total = 0
    for i in range(n):
        j = 0
        while j < m:
            if (i + j) % 2 == 0:
                total += i * j
            else:
                total -= 1
            j += 1
    return total
""",
    "cu_loop_if_loop": """
def f(x: Tensor, n: int) -> Tensor:
    y = x
    k = 0
    for i in range(n):
        if i % 2 == 0:
            for j in range(i):
                y = y + j
                k = k + 1
        else:
            y = y - 1
    return y * k
""",
    "cu_early_raise": """
def f(x: int) -> int:
    if x < 0:
        raise ValueError("negative")
    y = x * 2
    return y
""",
    "cu_raise_in_else": """
def f(x: int) -> int:
    if x >= 0:
        y = x
    else:
        raise RuntimeError("bad")
    return y
""",
    "cu_returns_bool": """
def f(x: int) -> bool:
    b = x > 3
    if b:
        b = x < 10
    return b
""",
    "cu_early_return": """
def f(x: int) -> int:
    if x > 0:
        return 1
    return 2
""",
    "cu_early_return_tail": """
def f(x: int) -> int:
    y = x
    if x > 0:
        return y
    y = y + 1
    z = y * 2
    return z
""",
    "cu_return_in_loop": """
def f(xs: List[int], t: int) -> int:
    for i in range(len(xs)):
        if xs[i] == t:
            return i
    return -1
""",
    "cu_return_tuple_early": """
def f(x: Tensor, n: int) -> Tuple[Tensor, int]:
    if n < 0:
        return x, 0
    y = x + n
    return y, n
""",
    "cu_return_both_branches": """
def f(x: int) -> int:
    if x > 0:
        return x + 1
    else:
        return x - 1
""",
    "cu_raise_both_branches": """
def f(x: int) -> int:
    y = x
    if x > 0:
        raise ValueError("positive")
    else:
        raise ValueError("not positive")
    return y
""",
    "cu_raise_only": """
def f(x: int) -> Tuple[int, str]:
    raise RuntimeError("always")
""",
    "cu_return_in_nested_loop": """
def f(n: int, m: int) -> Tuple[int, int]:
    found = -1
    for i in range(n):
        j = 0
        while j < m:
            if i * j == 12:
                return i, j
            j += 1
        found = i
    return found, found
""",
    "cu_return_or_raise_in_loop": """
def f(xs: List[int]) -> int:
    s = 0
    for x in xs:
        if x < 0:
            raise ValueError("negative")
        elif x == 0:
            return s
        s += x
    return s
""",
    "cu_ununifiable_branches": """
def f(c: bool) -> int:
    if c:
        y = 1
        z = y
    else:
        y = "a"
        z = 2
    return z
""",
    "cu_underscore_names": """
def f(n: int) -> int:
    _0 = 0
    _ = 1
    for _1 in range(n):
        _0 = _0 + _1
        _ = _ * 2
    return _0 + _
""",
    "cu_break": """
def f(n: int) -> int:
    s = 0
    i = 0
    while True:
        if i >= n:
            break
        s += i
        i += 1
    return s
""",
    "cu_continue": """
def f(x: int, n: int) -> int:
    y = 0
    i = 0
    while i < n:
        if x > 2:
            y = y + x
        else:
            continue
        i += 1
    return y
""",
    "cu_break_continue_for": """
def f(xs: List[int]) -> int:
    s = 0
    for x in xs:
        if x < 0:
            continue
        if x > 100:
            break
        s += x
    return s
""",
    "cu_comprehension": """
def f(n: int) -> List[int]:
    ys = [i * 2 for i in range(n)]
    return ys
""",
    "cu_with_no_grad": """
def f(x: Tensor) -> Tensor:
    with torch.no_grad():
        y = x * 2
    return y
""",
    "cu_with_in_loop": """
def f(x: Tensor, n: int) -> Tensor:
    y = x
    for i in range(n):
        with torch.no_grad():
            y = y * 2
            if i > 5:
                raise RuntimeError("too many")
    return y
""",
}

# Modules are scripted from this source (registered with linecache so that torch.jit.script can
# read it), saved and loaded back: loading compiles the printed code.
MODULE_FILE = "ssa_module_cases.py"
MODULE_SOURCES = {
    "mod_control_flow": """
class SsaControlFlow(torch.nn.Module):
    def forward(self, x: torch.Tensor, n: int) -> torch.Tensor:
        y = x
        for i in range(n):
            if i % 3 == 0:
                y = y + 1
            elif i % 3 == 1:
                y = y * 2
            else:
                continue
            if i > 10:
                break
        return y
""",
    "mod_early_return": """
class SsaEarlyReturn(torch.nn.Module):
    def forward(self, x: torch.Tensor, k: int) -> torch.Tensor:
        if k < 0:
            return x
        acc = torch.zeros_like(x)
        j = 0
        while j < k:
            acc = acc + x
            if bool(acc.sum() > 100.0):
                return acc
            j += 1
        return acc - 1
""",
    "mod_raise": """
class SsaRaise(torch.nn.Module):
    def forward(self, x: torch.Tensor, k: int) -> int:
        if k < 0:
            raise ValueError("k must be >= 0")
        total = 0
        for i in range(k):
            if i == 7:
                raise RuntimeError("seven")
            total += i
        return total
""",
}

CORPUS_CASES = ["control_flow_scripted", "raise_assert_scripted", "optional_scripted", "fork_wait_scripted",
                "containers_scripted", "scalar_args_scripted", "script_class_scripted"]

# ------------------------------------------------------------------------------------------------
# gdb side: dump the graph on entry to the passes around ConvertToSSA
# ------------------------------------------------------------------------------------------------

GDB_SCRIPT = r'''
import gdb
P = "std::shared_ptr<torch::jit::Graph>"
FUNCS = [("ReplaceOldOperatorsWithUpgraders(%s)" % P, "emitted"),
         ("CanonicalizeModifiedLoops(%s&)" % P, "converted")]
class BP(gdb.Breakpoint):
    def __init__(self, spec, label):
        super().__init__(spec, internal=True)
        self.label = label
    def stop(self):
        gdb.execute('call (int)fflush(0)', to_string=True)
        gdb.execute('call (int)puts("@@@@ stage %s")' % self.label, to_string=True)
        gdb.execute("call (void)'torch::jit::Graph::dump() const'(*(void**)$rdi)", to_string=True)
        gdb.execute('call (int)fflush(0)', to_string=True)
        return False
gdb.execute("set breakpoint pending on")
gdb.execute("set pagination off")
def on_obj(ev):
    if 'libtorch_cpu' in ev.new_objfile.filename and not getattr(on_obj, 'done', False):
        on_obj.done = True
        for f, l in FUNCS:
            BP("'torch::jit::" + f + "'", l)
gdb.events.new_objfile.connect(on_obj)
'''

# The compiling process. Markers go to the same stdout as Graph::dump(), flushed in between.
DRIVER = r'''
import sys
from typing import List, Optional, Tuple
import torch
from torch import Tensor

def mark(s):
    sys.stdout.flush()
    sys.stdout.write("@@@@ %s\n" % s)
    sys.stdout.flush()

jobs = [line.split("\t") for line in open(sys.argv[1]).read().splitlines()]
for kind, name, arg in jobs:
    mark("case " + name)
    try:
        if kind == "cu":
            torch.jit.CompilationUnit(open(arg).read())
        else:
            torch.jit.load(arg)
    except Exception as e:
        mark("error " + " ".join(str(e).split()))
    mark("end " + name)
'''

# Scripts and saves the MODULE_SOURCES modules (a process without gdb).
BUILDER = r'''
import linecache, sys
import torch
src, out_dir = open(sys.argv[1]).read(), sys.argv[2]
linecache.cache[%(file)r] = (len(src), None, src.splitlines(True), %(file)r)
ns = {"torch": torch, "__name__": "ssa_module_cases"}
exec(compile(src, %(file)r, "exec"), ns)
for line in sys.argv[3:]:
    name, cls = line.split("=")
    torch.jit.save(torch.jit.script(ns[cls]()), "%%s/%%s.pt" %% (out_dir, name))
''' % {"file": MODULE_FILE}


def module_file_text():
    # One file for every module, in a fixed order: the line numbers in its graphs' comments follow.
    return "".join(MODULE_SOURCES[k] for k in sorted(MODULE_SOURCES))


def class_name(src):
    return re.search(r"^class (\w+)", src, re.M).group(1)


# ------------------------------------------------------------------------------------------------
# Reading the dump
# ------------------------------------------------------------------------------------------------


def split_cases(stdout):
    """{case name: [(stage, graph text)]} from the marked stdout."""
    cases = {}
    current = None
    stage = None
    buf = []

    def flush():
        if current is not None and stage is not None:
            cases[current].append((stage, "".join(buf)))

    for line in stdout.splitlines(True):
        if line.startswith("@@@@ "):
            flush()
            stage, buf = None, []
            word, _, rest = line[5:].strip().partition(" ")
            if word == "case":
                current = rest
                cases[current] = []
            elif word == "end":
                current = None
            elif word == "stage":
                stage = rest
            elif word == "error":
                raise SystemExit("case %s does not compile: %s" % (current, rest))
        elif stage is not None:
            buf.append(line)
    flush()
    return cases


def normalize(text):
    # Graph::dump() adds an empty line after the graph.
    return text.rstrip("\n") + "\n"


def compiles(dumps):
    """Pairs (emitted, converted) of one function each. A function compiled on demand while another
    is being emitted runs all its passes before the outer one's emitted dump, so every `emitted`
    dump is followed by its own `converted` dump before the next `emitted`."""
    out = []
    pending = None
    for stage, text in dumps:
        if stage == "emitted":
            if pending is not None:
                raise SystemExit("emitted dump without its converted dump:\n" + pending)
            pending = text
        elif stage == "converted":
            if pending is None:
                raise SystemExit("converted dump without an emitted dump:\n" + text)
            out.append((normalize(pending), normalize(text)))
            pending = None
    return out


def first_param_type(graph_text):
    m = re.match(r"graph\(%[\w.]+ : ([^,)\n]+)", graph_text)
    return m.group(1) if m else ""


# ------------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        for name in list(CU_CASES) + list(MODULE_SOURCES) + ["corpus_" + c for c in CORPUS_CASES]:
            print(name)
        return

    env = dict(os.environ, PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory() as tmp:
        jobs = []
        for name, src in CU_CASES.items():
            path = os.path.join(tmp, name + ".ts")
            with open(path, "w") as f:
                f.write(src)
            jobs.append(("cu", name, path))

        mod_src = os.path.join(tmp, MODULE_FILE)
        with open(mod_src, "w") as f:
            f.write(module_file_text())
        subprocess.run([TORCH_PYTHON, "-c", BUILDER, mod_src, tmp] +
                       ["%s=%s" % (k, class_name(v)) for k, v in sorted(MODULE_SOURCES.items())],
                       check=True, env=env, cwd=tmp)
        for name in sorted(MODULE_SOURCES):
            jobs.append(("load", name, os.path.join(tmp, name + ".pt")))
        for name in CORPUS_CASES:
            jobs.append(("load", "corpus_" + name, os.path.join(MODELS_DIR, name + ".pt")))

        job_file = os.path.join(tmp, "jobs.tsv")
        with open(job_file, "w") as f:
            f.write("".join("\t".join(j) + "\n" for j in jobs))
        gdb_file = os.path.join(tmp, "dump.py")
        with open(gdb_file, "w") as f:
            f.write(GDB_SCRIPT)
        driver = os.path.join(tmp, "driver.py")
        with open(driver, "w") as f:
            f.write(DRIVER)
        p = subprocess.run(["gdb", "-q", "-batch", "-x", gdb_file, "-ex", "run", "--args", TORCH_PYTHON, driver, job_file],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp)
        cases = split_cases(p.stdout)

    results = {}
    for kind, name, _ in jobs:
        if name not in cases:
            # gdb's own chatter and the driver's traceback both end up on stderr.
            raise SystemExit("no dumps for case %s; the end of gdb's stderr:\n%s" %
                             (name, "\n".join(p.stderr.splitlines()[-15:])))
        pairs = compiles(cases[name])
        if kind == "cu":
            # Builtins that the function needs compile first; the function itself comes last.
            results[name] = pairs[-1]
            continue
        # Loading compiles every method of every class in the archive (and builtins on demand);
        # keep the methods of the archive's own classes, in compile order.
        mine = [pr for pr in pairs if first_param_type(pr[0]).startswith("__torch__.")]
        for i, pr in enumerate(mine):
            results["%s_%d" % (name, i)] = pr

    os.makedirs(OUT_DIR, exist_ok=True)
    for old in os.listdir(OUT_DIR):
        if old.endswith(".in.txt") or old.endswith(".out.txt"):
            os.remove(os.path.join(OUT_DIR, old))
    for name, (emitted, converted) in sorted(results.items()):
        with open(os.path.join(OUT_DIR, name + ".in.txt"), "w") as f:
            f.write(emitted)
        with open(os.path.join(OUT_DIR, name + ".out.txt"), "w") as f:
            f.write(converted)
    print("wrote %d cases to %s" % (len(results), os.path.relpath(OUT_DIR, REPO)))


if __name__ == "__main__":
    main()
