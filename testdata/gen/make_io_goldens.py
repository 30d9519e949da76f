#!/usr/bin/python3
"""Input and output files of `jitctl run`, written by numpy and PyTorch 1.13 (/usr/bin/python3).

Writes testdata/io/:
  npy/NAME.npy        one array per dtype and layout, written by np.save (or numpy.lib.format)
  npz/NAME.npz        np.savez (stored) and np.savez_compressed (deflated) files
  bad/NAME.npy        malformed .npy files, with the problem in bad.json
  pt/NAME.pt          torch.save files used as --inputs
  expected.json       what each good file holds: dtype (torch's name), shape, values in C order
tests/unit/test_runtime_io.cpp reads them; for .npy files numpy wrote from C-ordered
little-endian arrays it also checks that jitctl writes the same bytes.
Run: /usr/bin/python3 testdata/gen/make_io_goldens.py
"""
import io
import json
import os
import shutil
import struct

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "io")

TORCH_NAME = {
    "bool": "bool", "uint8": "uint8", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "float16": "float16", "float32": "float32", "float64": "float64", "complex64": "complex64",
    "complex128": "complex128",
}


def values(a):
    a = np.ascontiguousarray(a)
    if np.iscomplexobj(a):
        return [[float(v.real), float(v.imag)] for v in a.reshape(-1)]
    if a.dtype == np.bool_:
        return [bool(v) for v in a.reshape(-1)]
    if a.dtype.kind in "iu":
        return [int(v) for v in a.reshape(-1)]
    return [float(v) for v in a.reshape(-1)]


def describe(a):
    return {"dtype": TORCH_NAME[a.dtype.name], "shape": list(a.shape), "values": values(a)}


def sample(dtype, shape=(2, 3)):
    n = int(np.prod(shape))
    base = np.arange(n, dtype=np.float64) - 2.5
    if dtype == np.bool_:
        return (np.arange(n) % 3 == 0).reshape(shape)
    if np.dtype(dtype).kind in "iu":
        return (np.arange(n) * 7 % 11).astype(dtype).reshape(shape)
    if np.dtype(dtype).kind == "c":
        return (base + 1j * base[::-1]).astype(dtype).reshape(shape)
    return (base * 0.75).astype(dtype).reshape(shape)


def write_npy(expected, name, a, **kw):
    path = os.path.join(OUT, "npy", name + ".npy")
    if kw:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, a, **kw)
    else:
        np.save(path, a)
    d = describe(a)
    # jitctl writes C-ordered little-endian arrays; numpy's bytes for those are the reference.
    d["same_bytes_when_written"] = (not kw and a.flags["C_CONTIGUOUS"] and a.dtype.byteorder in "=<|")
    expected["npy/" + name + ".npy"] = d


def good_npy(expected):
    for dt in ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
               "complex64", "complex128"]:
        write_npy(expected, dt, sample(np.dtype(dt)))
    write_npy(expected, "scalar_0d", np.array(3.5, dtype=np.float32))
    write_npy(expected, "vector", sample(np.float32, (5,)))
    write_npy(expected, "empty", np.zeros((0, 3), dtype=np.float32))
    write_npy(expected, "rank4", sample(np.float32, (2, 1, 3, 2)))
    write_npy(expected, "fortran", np.asfortranarray(sample(np.float64, (3, 4))))
    write_npy(expected, "fortran3d", np.asfortranarray(sample(np.int32, (2, 3, 4))))
    write_npy(expected, "bigendian", sample(np.dtype(">f4"), (2, 3)))
    write_npy(expected, "bigendian_c128", sample(np.dtype(">c16"), (3,)))
    write_npy(expected, "version2", sample(np.float32, (2, 2)), version=(2, 0))
    # Other writers: a descr without a byte order (native), double quotes, Python 2 longs.
    other = "{\"descr\": \"f4\", \"fortran_order\": False, \"shape\": (2L,), }"
    with open(os.path.join(OUT, "npy", "other_writer.npy"), "wb") as f:
        f.write(raw_npy(other, struct.pack("<2f", 1.5, -2.0)))
    d = describe(np.array([1.5, -2.0], dtype=np.float32))
    d["same_bytes_when_written"] = False
    expected["npy/other_writer.npy"] = d


def good_npz(expected):
    a, b = sample(np.float32, (2, 3)), sample(np.int64, (4,))
    c = np.array(True)
    for name, save in [("stored", np.savez), ("deflated", np.savez_compressed)]:
        path = os.path.join(OUT, "npz", name + ".npz")
        save(path, arg1=b, arg0=a, arg2=c)  # out of order on purpose: arguments go by number
        expected["npz/" + name + ".npz"] = [describe(a), describe(b), describe(c)]
    path = os.path.join(OUT, "npz", "numpy_default_names.npz")
    np.savez(path, a, b)  # arr_0, arr_1
    expected["npz/numpy_default_names.npz"] = [describe(a), describe(b)]
    np.savez(os.path.join(OUT, "npz", "keyword_names.npz"), x=a)
    np.savez(os.path.join(OUT, "npz", "gap.npz"), arg0=a, arg2=b)


def raw_npy(header, data=b"", version=(1, 0), pad=True):
    h = header.encode("latin1")
    if pad:
        total = 10 + len(h) + 1
        h += b" " * ((64 - total % 64) % 64) + b"\n"
    return b"\x93NUMPY" + bytes(version) + struct.pack("<H", len(h)) + h + data


def bad_npy():
    ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
    two = struct.pack("<2f", 1.0, 2.0)
    cases = {
        "bad_magic": (b"\x93NUMPX\x01\x00" + raw_npy(ok, two)[8:], "not a .npy file", 2),
        "truncated_magic": (b"\x93NUM", "not a .npy file", 2),
        "bad_version": (raw_npy(ok, two, version=(9, 0)), "unknown .npy format version 9.0", 2),
        "header_past_end": (b"\x93NUMPY\x01\x00" + struct.pack("<H", 500) + b"{'descr'", "runs past the end", 2),
        "not_a_dict": (raw_npy("['descr', '<f4']", two), "expected '{'", 2),
        "missing_shape": (raw_npy("{'descr': '<f4', 'fortran_order': False, }", two), "must have the keys", 2),
        "unknown_key": (raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1, }", two),
                        "unexpected key 'x'", 2),
        "bad_fortran": (raw_npy("{'descr': '<f4', 'fortran_order': maybe, 'shape': (2,), }", two),
                        "expected True or False", 2),
        "negative_dim": (raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", two),
                         "non-negative dimension", 2),
        "unterminated": (raw_npy("{'descr': '<f4, 'fortran_order': False, 'shape': (2,), }", two, pad=False)[:-3],
                         "malformed .npy header", 2),
        "trailing_text": (raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", two),
                          "text after the closing", 2),
        "bad_dtype": (raw_npy("{'descr': '<', 'fortran_order': False, 'shape': (2,), }", two),
                      "malformed .npy header: dtype '<'", 2),
        "short_data": (raw_npy(ok, two[:6]), "data is 6 bytes, but shape (2,) of '<f4' needs 8", 2),
        "long_data": (raw_npy(ok, two + two), "data is 16 bytes", 2),
        "huge_shape": (raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 8), }", two),
                       "too large", 2),
        "structured": (raw_npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", two),
                       "structured arrays", 3),
        "object_dtype": (raw_npy("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", two),
                         "numpy dtype '|O' is not supported", 3),
        "uint16": (raw_npy("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", two),
                   "uint16 has no torch equivalent", 3),
    }
    manifest = {}
    for name, (data, message, code) in cases.items():
        with open(os.path.join(OUT, "bad", name + ".npy"), "wb") as f:
            f.write(data)
        manifest["bad/" + name + ".npy"] = {"message": message, "exit_code": code}
    # numpy itself refuses these (the oracle for "malformed"), with the exceptions below.
    for name, (_, _, code) in cases.items():
        if code != 2:  # well-formed, but not something jitctl supports
            continue
        try:
            np.load(os.path.join(OUT, "bad", name + ".npy"), allow_pickle=False)
        except Exception:
            continue
        # numpy ignores trailing bytes and reads a negative dimension as "all of it".
        if name not in ("long_data", "negative_dim"):
            raise SystemExit(f"numpy accepted bad/{name}.npy")
    return manifest


def torch_inputs(expected):
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4
    args = (t, 3, 2.5, True, "hello", None, [1, 2, 3], {"a": torch.ones(2, dtype=torch.int64)})
    torch.save(args, os.path.join(OUT, "pt", "mixed_tuple.pt"))
    expected["pt/mixed_tuple.pt"] = {"count": len(args), "arg0": describe(t.numpy())}
    torch.save(t, os.path.join(OUT, "pt", "single_tensor.pt"))
    expected["pt/single_tensor.pt"] = {"count": 1, "arg0": describe(t.numpy())}
    torch.save([t, t], os.path.join(OUT, "pt", "list.pt"))
    expected["pt/list.pt"] = {"count": 1}


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    for d in ["npy", "npz", "bad", "pt"]:
        os.makedirs(os.path.join(OUT, d))
    expected = {}
    good_npy(expected)
    good_npz(expected)
    torch_inputs(expected)
    bad = bad_npy()
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"good": expected, "bad": bad}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
