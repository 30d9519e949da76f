#!/usr/bin/python3
"""Runs ../shared/oracle/compat.py on a corpus directory for the given checks and fails unless every
counted case agrees with PyTorch. Skips (77) without torch or without the shared oracle."""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
import torch_or_skip  # noqa: F401,E402


def main():
    jitctl, models, checks, compat = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    if not os.path.exists(compat):
        print(f"SKIP: {compat} not found")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        subprocess.run([sys.executable, compat, "--jitctl", jitctl, "--models", models, "--checks", checks,
                        "--json", report], check=True)
        summary = json.load(open(report))["summary"]
    bad = {k: v for k, v in summary.items() if v[0] != v[1] or v[1] == 0}
    if bad:
        print(f"compat checks below 100%: {bad}")
        sys.exit(1)


if __name__ == "__main__":
    main()
