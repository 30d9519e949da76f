#!/usr/bin/env python3
"""Merge the schema lists of every PyTorch version into testdata/schemas/schemas_versions.txt.

Input: schemas.txt (PyTorch 1.13, dump_schemas.py under Debian's torch) and schemas_MAJOR.MINOR.txt
(dump_schemas.py under a 2.x venv). Output: one line per distinct schema text,

    VERSIONS<TAB>schema

where VERSIONS are those versions whose list holds that exact text, comma-separated ("1.13,2.4,2.15";
the first is the oldest, the last the newest; a schema whose text changed between versions -- new trailing defaults, SymInt, renamed
arguments -- has one line per text). Lines come in 1.13's registration order, then the schemas
new in each later version in that version's order. jitctl compiles each version's own list in
(lib/frontend/schema_registry.h); this file is the summary a reader or a tool looks up.

No torch needed: python3 testdata/gen/make_schema_versions.py
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = os.path.normpath(os.path.join(HERE, "..", "schemas"))


def version_key(v):
    return tuple(int(x) for x in v.split("."))


def main():
    lists = {"1.13": os.path.join(SCHEMAS, "schemas.txt")}
    for f in os.listdir(SCHEMAS):
        m = re.fullmatch(r"schemas_(\d+\.\d+)\.txt", f)
        if m:
            lists[m.group(1)] = os.path.join(SCHEMAS, f)
    versions = sorted(lists, key=version_key)
    seen = {}  # schema text -> [versions]
    order = []
    for v in versions:
        with open(lists[v]) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                if line not in seen:
                    seen[line] = []
                    order.append(line)
                seen[line].append(v)
    out = os.path.join(SCHEMAS, "schemas_versions.txt")
    with open(out, "w") as f:
        for line in order:
            f.write(f"{','.join(seen[line])}\t{line}\n")
    print(f"{len(order)} distinct schemas over {', '.join(versions)} -> {os.path.relpath(out)}")


if __name__ == "__main__":
    main()
