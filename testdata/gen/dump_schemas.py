#!/usr/bin/python3
"""Write testdata/schemas/schemas.txt: every operator schema PyTorch's JIT knows, one per line, in the
order torch lists them: an operator's overloads stay in registration order, which is the order
overload resolution tries them in (`aten::add.int_float` before `aten::add(Scalar, Scalar)`).

Run with Debian's PyTorch: /usr/bin/python3 testdata/gen/dump_schemas.py
"""
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "schemas", "schemas.txt")


def main():
    lines = [str(s) for s in torch._C._jit_get_all_schemas()]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} schemas -> {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
