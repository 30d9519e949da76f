#!/usr/bin/python3
"""Write testdata/schemas/schemas.txt: every operator schema PyTorch's JIT knows, one per line, in the
order torch lists them: an operator's overloads stay in registration order, which is the order
overload resolution tries them in (`aten::add.int_float` before `aten::add(Scalar, Scalar)`).

Run with Debian's PyTorch: /usr/bin/python3 testdata/gen/dump_schemas.py
With another PyTorch (a 2.x venv, see make_corpus_versions.py), pass the output file:
    /work/venv-torch2.4/bin/python testdata/gen/dump_schemas.py testdata/schemas/schemas_2.4.txt
(make_schema_versions.py then merges those lists into schemas_versions.txt.)
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "schemas", "schemas.txt")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else OUT
    lines = [str(s) for s in torch._C._jit_get_all_schemas()]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} schemas (torch {torch.__version__}) -> {os.path.normpath(out)}")


if __name__ == "__main__":
    main()
