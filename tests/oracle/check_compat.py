#!/usr/bin/python3
"""Runs ../shared/oracle/compat.py on a corpus directory and fails unless each check agrees with
PyTorch on at least the given share of the corpus. Skips (77) without torch or the shared oracle.

Usage: check_compat.py JITCTL MODELS CHECKS COMPAT_PY [COMPAT_ARG...], CHECKS like
"load=1,graph=1,inline=0.95"; COMPAT_ARGs go to compat.py as they are (e.g. --optimize-args=--passes none)."""
import json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
import torch_or_skip  # noqa: F401,E402

SANITIZER_REPORT = re.compile(r"(?:Sanitizer|runtime error)[^\n]*|#\d+ 0x[0-9a-f]+ in [^\n]*")


def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)


def main():
    jitctl, models, checks, compat = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    if not os.path.exists(compat):
        print(f"SKIP: {compat} not found")
        sys.exit(77)
    wanted = {}
    for item in checks.split(","):
        name, _, share = item.partition("=")
        wanted[name] = float(share or 1)
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        subprocess.run([sys.executable, compat, "--jitctl", jitctl, "--models", models, "--checks", ",".join(wanted),
                        "--json", report, *sys.argv[5:]], check=True)
        full = json.load(open(report))
        summary = full["summary"]
    # A sanitizer build's jitctl that dies with a report (AddressSanitizer, UBSan: a stack trace on
    # stderr, which compat.py keeps the tail of) is a failure, even where the bar tolerates a
    # mismatch.
    reports = sorted({m for text in strings(full) for m in SANITIZER_REPORT.findall(text)})
    if reports:
        print(f"jitctl died with a sanitizer report: {reports[:5]}")
        sys.exit(1)
    bad = {k: summary[k] for k, share in wanted.items() if summary[k][1] == 0 or summary[k][0] < share * summary[k][1]}
    if bad:
        print(f"compat checks below their bar {wanted}: {bad}")
        sys.exit(1)


if __name__ == "__main__":
    main()
