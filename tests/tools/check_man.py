#!/usr/bin/env python3
"""The manual page against the command line it documents.

`jitctl --dump-cli-json` is the CLI definition itself (cli/cli_model.h). man/jitctl.1 must have, for
every visible command, an entry in COMMANDS (a `.TP` whose next line names the command) that
mentions each of the command's options (`\\-\\-name`), and no option there that the command does
not have; the top-level options under OPTIONS; the exit codes 0-3 under EXIT STATUS; every
command's --help examples non-empty. With --model M, every key of the JSON that the reporting
commands print for M (`info`, `dump-graph`, `run`, `run --describe-inputs`, `parallel-info`) must
appear in that command's entry.

Usage: check_man.py JITCTL MAN_PAGE [--model M.pt]   (--self-test: checks the checker)"""
import json
import re
import subprocess
import sys
import tempfile


def unescape(s):
    return s.replace("\\-", "-").replace("\\(dq", '"').replace("\\fB", "").replace("\\fR", "").replace(
        "\\fI", "").replace("\\fP", "")


def sections(man):
    """{'COMMANDS': text, ...}"""
    out, name = {}, None
    for line in man.splitlines():
        if line.startswith(".SH "):
            name = line[4:].strip().strip('"')
            out[name] = ""
        elif name:
            out[name] += line + "\n"
    return out


def command_entries(commands_text, names):
    """{command name: its entry's text}; an entry header is a `.TP` line followed by a line whose
    first word (after .B/.BR and quotes) is a command name; `.BR a ", " b` documents both."""
    lines = commands_text.splitlines()
    heads = []  # (line index, [names])
    for i in range(len(lines) - 1):
        if lines[i].strip() != ".TP":
            continue
        m = re.match(r'^\.BR?\s+(.*)$', lines[i + 1])
        if not m:
            continue
        words = re.findall(r'[A-Za-z][A-Za-z\\-]*', unescape(m.group(1)).replace('"', " "))
        first = words[0] if words else ""
        if first not in names:
            continue
        documented = [first]
        # ".BR check\-trace ", " freeze": a list of commands on one header line
        for w in re.findall(r'"\s*,\s*"\s*([a-z][a-z\-]*)', unescape(m.group(1))):
            if w in names:
                documented.append(w)
        heads.append((i, documented))
    entries = {}
    for k, (start, documented) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        text = "\n".join(lines[start:end])
        for n in documented:
            # A command may have more than one entry (bench-threads M ..., bench-threads --op ...).
            entries[n] = (entries[n][0] + "\n" + text, documented) if n in entries else (text, documented)
    return entries


def flags_in(text):
    return set(re.findall(r'(?<![\w\\-])(--?[a-z][a-z0-9-]*)', unescape(text)))


# Objects keyed by data (method names, operator kinds), not by a fixed vocabulary: their keys are
# not documented.
MAP_KEYS = {"method_schemas", "ops"}


def json_keys(value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            if k not in MAP_KEYS:
                json_keys(v, out)
    elif isinstance(value, list):
        for v in value:
            json_keys(v, out)
    return out


def check(cli, man, reports):
    """Problems, as lines. cli: the --dump-cli-json object; man: the page's text; reports:
    {command: [parsed JSON outputs]}."""
    problems = []
    secs = sections(man)
    for need in ("COMMANDS", "OPTIONS", "EXIT STATUS", "EXAMPLES"):
        if need not in secs:
            problems.append(f"no .SH {need} section")
    commands = {c["name"]: c for c in cli["commands"]}
    entries = command_entries(secs.get("COMMANDS", ""), set(commands))
    for name, c in commands.items():
        if name not in entries:
            problems.append(f"command '{name}': no entry in COMMANDS")
            continue
        raw, sharing = entries[name]
        text = unescape(raw)
        # An entry shared by several commands may name any of their options.
        real = {n for other in sharing if other != name for o in commands[other]["options"] for n in o["names"]}
        for o in c["options"]:
            if o["positional"]:
                continue
            for n in o["names"]:
                real.add(n)
                if n in ("--help", "-h"):
                    continue
                if not re.search(r'(?<![\w-])' + re.escape(n) + r'(?![\w-])', text):
                    problems.append(f"command '{name}': option {n} is not in its man entry")
        for f in sorted(flags_in(raw) - real - {"--help", "-h"}):
            # An entry may name another command's options only as "other-command --flag".
            if not any(f in {n for o in commands[other]["options"] for n in o["names"]}
                       and re.search(re.escape(other) + r'\s+' + re.escape(f), text)
                       for other in commands if other != name):
                problems.append(f"command '{name}': its man entry names {f}, which it does not have")
        if not c.get("examples"):
            problems.append(f"command '{name}': its --help has no example")
        for key in sorted(set().union(*[json_keys(r, set()) for r in reports.get(name, [])]) if reports.get(name) else []):
            if not re.search(r'(?<![\w])' + re.escape(key) + r'(?![\w])', text):
                problems.append(f"command '{name}': JSON key '{key}' is not in its man entry")
    top = unescape(secs.get("OPTIONS", ""))
    for o in cli["options"]:
        for n in o["names"]:
            if n.startswith("--") and n not in top:
                problems.append(f"top-level option {n} is not under OPTIONS")
    status = secs.get("EXIT STATUS", "")
    for code in "0123":
        if not re.search(r'^\.B ' + code + r'\s*$', status, re.M):
            problems.append(f"exit status {code} is not under EXIT STATUS")
    return problems


def run_json(argv):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def reports_for(jitctl, model):
    with tempfile.TemporaryDirectory() as tmp:
        return {
            "info": [run_json([jitctl, "info", "--format", "json", model])],
            "dump-graph": [run_json([jitctl, "dump-graph", "--format", "json", model])],
            "run": [run_json([jitctl, "run", model, "--describe-inputs", "--format", "json"])],
            "parallel-info": [run_json([jitctl, "parallel-info", "--format", "json"])],
            "optimize": [run_json([jitctl, "optimize", model, "-o", tmp + "/o.pt", "--format", "json"])],
        }


def self_test():
    cli = {"options": [{"names": ["--help"], "positional": False}, {"names": ["--version"], "positional": False}],
           "commands": [{"name": "info", "examples": ["jitctl info m.pt"],
                         "options": [{"names": ["--help"], "positional": False},
                                     {"names": ["model"], "positional": True},
                                     {"names": ["--format"], "positional": False}]},
                        {"name": "run", "examples": ["x"],
                         "options": [{"names": ["-o", "--output"], "positional": False}]}]}
    good = (".SH COMMANDS\n.TP\n.BR info \" \\fIM\\fR [\" \\-\\-format \" text|json]\"\nSummary; keys\n.B total\n"
            ".TP\n.BR run \" \\-o \\-\\-output\"\nRuns (see info \\-\\-format).\n"
            ".SH OPTIONS\n.TP\n.B \\-\\-help\n.B \\-\\-version\n.SH EXIT STATUS\n.TP\n.B 0\n.TP\n.B 1\n.TP\n.B 2\n.TP\n.B 3\n"
            ".SH EXAMPLES\njitctl info m.pt\n")
    assert check(cli, good, {"info": [{"total": 1}]}) == [], check(cli, good, {"info": [{"total": 1}]})
    bad_cases = {
        "option --format is not in": good.replace('[" \\-\\-format " text|json]', ""),
        "names --bogus": good.replace("Summary;", "Summary \\-\\-bogus;"),
        "'run': no entry": good.replace(".BR run", ".BR walk"),
        "JSON key 'rows'": good,
        "exit status 3": good.replace(".B 3\n", ""),
        "--version is not under OPTIONS": good.replace(".B \\-\\-version\n", ""),
    }
    for want, man in bad_cases.items():
        reports = {"info": [{"total": 1, "rows": [{"x": 1}]}]} if "rows" in want else {}
        got = check(cli, man, reports)
        assert any(want in p for p in got), (want, got)
    no_example = json.loads(json.dumps(cli))
    no_example["commands"][0]["examples"] = []
    assert any("no example" in p for p in check(no_example, good, {}))
    print("check_man self-test: ok")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) not in (3, 5):
        raise SystemExit(__doc__)
    jitctl, man_path = sys.argv[1], sys.argv[2]
    cli = run_json([jitctl, "--dump-cli-json"])
    reports = reports_for(jitctl, sys.argv[4]) if len(sys.argv) == 5 and sys.argv[3] == "--model" else {}
    with open(man_path, encoding="utf-8") as f:
        man = f.read()
    problems = check(cli, man, reports)
    for p in problems:
        print(f"{man_path}: {p}")
    if problems:
        sys.exit(1)
    print(f"{man_path}: {len(cli['commands'])} commands, every option and JSON key documented")


if __name__ == "__main__":
    main()
