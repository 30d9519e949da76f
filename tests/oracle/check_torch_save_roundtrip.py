#!/usr/bin/python3
"""Every torch.save file of the corpus (inputs and PyTorch's outputs), read and re-written by
jitctl (tests/tools/resave), must torch.load() to the same values, types, dtypes and sharing."""
import os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
import torch_or_skip  # noqa: F401,E402
import torch  # noqa: E402


def same(a, b, path="value"):
    if isinstance(b, torch.Tensor):
        assert isinstance(a, torch.Tensor), f"{path}: {type(a)}"
        assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride(), f"{path}: layout"
        assert a.storage_offset() == b.storage_offset(), f"{path}: offset"
        assert a.requires_grad == b.requires_grad, f"{path}: requires_grad"
        assert type(a) is type(b), f"{path}: {type(a)} != {type(b)}"
        assert torch.equal(a, b) or (a.is_floating_point() and torch.equal(a.isnan(), b.isnan())), f"{path}: values"
        return
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(b, (list, tuple)):
        assert len(a) == len(b), f"{path}: length"
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(b, dict):
        assert list(a.keys()) == list(b.keys()), f"{path}: keys"
        for k in b:
            same(a[k], b[k], f"{path}[{k!r}]")
    else:
        assert a == b or (a != a and b != b), f"{path}: {a!r} != {b!r}"


def storages(v, out):
    if isinstance(v, torch.Tensor):
        out.append(v.storage().data_ptr())
    elif isinstance(v, (list, tuple)):
        for x in v:
            storages(x, out)
    elif isinstance(v, dict):
        for x in v.values():
            storages(x, out)
    return out


def sharing(v):
    ptrs = storages(v, [])
    return [ptrs.index(p) for p in ptrs]


def main():
    resave, testdata = sys.argv[1], sys.argv[2]
    files = []
    for root, _, names in os.walk(testdata):
        if "hostile" in root:
            continue
        files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".pt") and (".in" in n or n.startswith("out"))]
    assert len(files) > 50, f"only {len(files)} torch.save files found under {testdata}"
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            out = os.path.join(tmp, "resaved.pt")
            p = subprocess.run([resave, f, out], capture_output=True, text=True)
            try:
                assert p.returncode == 0, p.stderr.strip()
                want, got = torch.load(f), torch.load(out)
                same(got, want)
                assert sharing(got) == sharing(want), "storage sharing differs"
            except AssertionError as e:
                failed += 1
                print(f"FAIL {os.path.relpath(f, testdata)}: {e}")
    print(f"torch.save round trip: {len(files) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
