#!/usr/bin/python3
"""Unified diffs as Python's difflib writes them, for jitctl's graph diff (lib/check/graph_diff.h).

    python3 testdata/gen/make_diff_goldens.py     # writes testdata/diff/unified.json

Each case: two lists of lines and difflib.unified_diff(a, b, "a", "b", n=3, lineterm="") -- the
hunk headers (`@@ -l,n +l,n @@`, a length of 1 written as the start alone, an empty side as the line
before it with length 0), context lines, and each change's removed lines before its added ones.
Lines are unique within a case, so that the alignment (the longest common subsequence) is unique
and any correct diff algorithm finds difflib's.
"""
import difflib, json, os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff", "unified.json")


def lines(*ids):
    return [f"line {i}" for i in ids]


CASES = {
    "replace_middle": (lines(*range(1, 11)), lines(1, 2, 3, 4, "5x", 6, 7, 8, 9, 10)),
    "insert_top": (lines(*range(1, 8)), lines("0a", "0b", *range(1, 8))),
    "insert_middle": (lines(*range(1, 15)), lines(*range(1, 8), "7a", *range(8, 15))),
    "delete_end": (lines(*range(1, 9)), lines(*range(1, 6))),
    "delete_one": (lines(*range(1, 12)), lines(*range(1, 6), *range(7, 12))),
    "two_changes_one_hunk": (lines(*range(1, 16)), lines(*range(1, 4), "4x", *range(5, 10), "10x", *range(11, 16))),
    "two_hunks": (lines(*range(1, 25)), lines(1, 2, "3x", *range(4, 20), "20x", *range(21, 25))),
    "append_lines": (lines(*range(1, 6)), lines(*range(1, 6), 6, 7, 8)),
    "everything_differs": (lines(1, 2, 3), lines("a", "b")),
    "one_line_each": (lines(1), lines(2)),
    "from_nothing": ([], lines(1, 2)),
    "to_nothing": (lines(1, 2, 3), []),
    "replace_two_by_three": (lines(*range(1, 13)), lines(*range(1, 6), "6x", "7x", "7y", *range(8, 13))),
}


def main():
    out = {}
    for name, (a, b) in CASES.items():
        diff = list(difflib.unified_diff(a, b, "a", "b", n=3, lineterm=""))
        out[name] = {"a": a, "b": b, "unified": diff[2:]}  # without the ---/+++ labels
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
