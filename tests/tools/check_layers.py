#!/usr/bin/env python3
"""The layers of jitctl, checked over `#include "..."` lines: a file may include only from its own
layer or the layers below it (README.md, Layout, is the order in words; LAYERS below is the
truth the build follows). Fails, naming file:line, when

  - a file includes from a layer above its own (or, for a layer that may use only some layers
    below it, from any other);
  - two layer folders include each other;
  - a header forward-declares a type (`class X;` / `struct X;`) that only a higher layer defines;
  - a C++ file sits in a folder the table does not know, anywhere in the tree but build folders
    (add the folder to LAYERS, in its place in the order).

Usage: check_layers.py SOURCE_ROOT      check the tree
       check_layers.py --self-test      check fake trees with known violations (each must fail)
Prints "check_layers: N passed, M failed" (the rules), exits 1 on any violation.
"""
import os
import re
import sys
import tempfile

# Lowest first. (folder, layers it may include besides its own; None: every layer below it)
LAYERS = [
    ("lib/core", None),
    ("lib/ops", None),
    ("lib/archive", None),
    ("lib/ir", None),
    ("passes/analysis", None),
    ("passes", None),
    ("lib/frontend", None),
    ("lib/serialization", None),
    ("kernels", ["lib/core"]),  # kernels see tensors and values, nothing of the compiler
    ("lib/runtime", None),
    ("lib/bench", None),
    ("lib/check", None),
    ("cli", None),
    ("tests", None),
]
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".def")
# Includes of these folders are jitctl's own; any other quoted include is left alone.
CODE_ROOTS = ("lib", "passes", "kernels", "cli", "tests")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
FORWARD = re.compile(r"^\s*(?:class|struct)\s+([A-Za-z_]\w*)\s*;")
DEFINITION = re.compile(r"^\s*(?:template\s*<[^>]*>\s*)?(?:class|struct)\s+([A-Za-z_]\w*)\b(?:\s+final)?\s*(?::[^;{]*)?\{")


def layer_of(path):
    """Index into LAYERS of the deepest folder that holds `path`, or None."""
    best = None
    for i, (folder, _) in enumerate(LAYERS):
        if path == folder or path.startswith(folder + "/"):
            if best is None or len(folder) > len(LAYERS[best][0]):
                best = i
    return best


def is_build_dir(path):
    return os.path.exists(os.path.join(path, "build.ninja")) or os.path.isdir(os.path.join(path, "meson-private"))


def source_files(root):
    """Every C++ file of the tree (build folders and hidden ones skipped), so that code in a folder
    the table does not know is found wherever it is put."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not is_build_dir(os.path.join(dirpath, d)))
        for f in sorted(filenames):
            if f.endswith(SOURCE_SUFFIXES):
                yield os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")


def check(root):
    """Returns (rules, violations): the rule names and 'file:line: problem' lines."""
    files = list(source_files(root))
    texts = {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            texts[f] = fh.read().splitlines()

    problems = {"layer table": [], "include order": [], "mutual includes": [], "forward declarations": []}
    edges = {}  # (from layer, to layer) -> first "file:line"
    for f in files:
        src = layer_of(f)
        if src is None:
            problems["layer table"].append(f"{f}:1: in a folder that no layer of tests/tools/check_layers.py holds")
            continue
        folder, only = LAYERS[src]
        for n, line in enumerate(texts[f], 1):
            m = INCLUDE.match(line)
            if not m or not m.group(1).split("/")[0] in CODE_ROOTS:
                continue
            target = m.group(1)
            dst = layer_of(target)
            if dst is None:
                problems["layer table"].append(f"{f}:{n}: includes {target}, in a folder that no layer holds")
                continue
            if dst == src:
                continue
            edges.setdefault((src, dst), f"{f}:{n}")
            if dst > src:
                problems["include order"].append(
                    f"{f}:{n}: includes {target} from {LAYERS[dst][0]}, a layer above {folder}")
            elif only is not None and LAYERS[dst][0] not in only:
                problems["include order"].append(
                    f"{f}:{n}: includes {target} from {LAYERS[dst][0]}; {folder} may include only {', '.join(only)}")
    for (a, b), where in sorted(edges.items()):
        if a < b and (b, a) in edges:
            problems["mutual includes"].append(
                f"{where}: {LAYERS[a][0]} and {LAYERS[b][0]} include each other (also {edges[(b, a)]})")

    defined = {}  # type name -> layers that define it
    for f in files:
        src = layer_of(f)
        for line in texts[f]:
            m = DEFINITION.match(line)
            if m and src is not None:
                defined.setdefault(m.group(1), set()).add(src)
    for f in files:
        src = layer_of(f)
        if src is None:
            continue
        for n, line in enumerate(texts[f], 1):
            m = FORWARD.match(line)
            if not m or "friend" in line:
                continue
            layers = defined.get(m.group(1), set())
            if layers and min(layers) > src:
                problems["forward declarations"].append(
                    f"{f}:{n}: forward-declares {m.group(1)}, which only {LAYERS[min(layers)][0]} (a layer above "
                    f"{LAYERS[src][0]}) defines")
    return problems


def report(problems, label):
    failed = [rule for rule, found in problems.items() if found]
    for rule in problems:
        for p in problems[rule]:
            print(p)
    print(f"{label}: {len(problems) - len(failed)} passed, {len(failed)} failed")
    return not failed


def write_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as fh:
            fh.write(text)


def self_test():
    """A clean fake tree must pass; each injected violation must fail, naming its file:line."""
    clean = {
        "lib/core/value.h": "#pragma once\nstruct Value {};\n",
        "lib/ir/graph.h": '#pragma once\n#include "lib/core/value.h"\nclass Graph {};\n',
        "passes/dce.cpp": '#include "lib/ir/graph.h"\n#include "passes/analysis/alias.h"\n',
        "passes/analysis/alias.h": '#include "lib/ir/graph.h"\n',
        "kernels/add.cpp": '#include "lib/core/value.h"\n',
        "lib/runtime/plan.h": '#pragma once\n#include "kernels/add.h"\n#include "lib/ir/graph.h"\nstruct Plan {\n};\n',
        "kernels/add.h": "#pragma once\n",
        "cli/main.cpp": '#include "lib/runtime/plan.h"\n',
    }
    cases = {
        "an include from a higher layer": ({"lib/core/bad.h": '#pragma once\n\n#include "lib/ir/graph.h"\n'},
                                            "lib/core/bad.h:3:"),
        "an analysis including a pass": ({"passes/analysis/bad.cpp": '#include "passes/dce.h"\n'},
                                         "passes/analysis/bad.cpp:1:"),
        "kernels including beyond lib/core": ({"kernels/bad.cpp": '#include "lib/ir/graph.h"\n'}, "kernels/bad.cpp:1:"),
        "two layers including each other": ({"lib/ir/up.h": '#include "lib/runtime/plan.h"\n'}, "include each other"),
        "a forward declaration from a higher layer": ({"lib/ir/fwd.h": "#pragma once\nnamespace x {\nstruct Plan;\n}\n"},
                                                     "lib/ir/fwd.h:3:"),
        "a folder the table does not know": ({"lib/newlayer/a.cpp": "int a;\n"}, "lib/newlayer/a.cpp:1:"),
        "a new top-level folder": ({"fuzz/fuzz_zip.cpp": '#include "lib/core/value.h"\n'}, "fuzz/fuzz_zip.cpp:1:"),
    }
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "clean")
        write_tree(base, clean)
        problems = check(base)
        if any(problems.values()):
            print("self-test: the clean tree fails:", problems)
            failed += 1
        else:
            passed += 1
        for i, (what, (extra, expect)) in enumerate(cases.items()):
            root = os.path.join(tmp, f"case{i}")
            write_tree(root, {**clean, **extra})
            found = [p for ps in check(root).values() for p in ps]
            if any(expect in p for p in found):
                passed += 1
            else:
                print(f"self-test: {what}: not reported (want '{expect}', got {found})")
                failed += 1
    print(f"check_layers self-test: {passed} passed, {failed} failed")
    return failed == 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 0 if self_test() else 1
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    return 0 if report(check(argv[1]), "check_layers") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
