#!/usr/bin/python3
"""Generate hostile / malformed TorchScript archives for jitctl's robustness tests.

Writes testdata/hostile/NAME.pt plus testdata/hostile/expect.json (the contract:
`jitctl <command> NAME.pt` exits 2 with one stderr line containing `mentions`,
never crashes, hangs or succeeds; entries with "may_succeed": true only demand
no crash / no hang and exit 0 or 2).

Usage:
    /usr/bin/python3 testdata/gen/make_hostile.py            # (re)generate
    /usr/bin/python3 testdata/gen/make_hostile.py --verify   # + check PyTorch's behaviour
    /usr/bin/python3 testdata/gen/make_hostile.py --rebuild-base

The two valid bases (base_valid.pt: scripted Linear(4,3)+BatchNorm1d; base_inputs_valid.pt:
torch.save((float32 2x4 tensor, 5)), the
arguments base_valid.pt's forward(x, k: int) takes) are built with torch the first time (or with --rebuild-base) and
kept in testdata/hostile/, so later runs are byte-deterministic and need no torch.
Every variant is derived from them by byte-level editing: our own tiny zip writer (so sizes,
names, offsets and compression can lie) and our own pickle re-emitter (pickletools.genops in,
opcode bytes out).  Nothing here ever unpickles a payload with Python's pickle.
"""
import io
import json
import os
import pickletools
import random
import struct
import subprocess
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "hostile"
BASE = OUT / "base_valid.pt"
BASE_INPUTS = OUT / "base_inputs_valid.pt"
TORCH_PY = "/usr/bin/python3"
PWNED = "/tmp/jitctl_pwned"

# ----------------------------------------------------------------------------- bases


def build_bases():
    import torch  # only here

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 3)
            self.bn = torch.nn.BatchNorm1d(3)

        def forward(self, x, k: int):
            return self.bn(self.lin(x)) + k

    torch.manual_seed(0)
    m = torch.jit.script(M().eval())
    b = io.BytesIO()
    torch.jit.save(m, b)
    # Drop the *.debug_pkl records: they embed this script's absolute path, which would make
    # the output depend on the checkout location.  torch.jit.load does not need them.
    ents = [(n, d, 8 if n.endswith(".py") else 0) for n, d in read_zip(b.getvalue())
            if not n.endswith(".debug_pkl")]
    BASE.write_bytes(write_zip(ents))
    b = io.BytesIO()
    torch.save((torch.arange(8, dtype=torch.float32).reshape(2, 4), 5), b)
    BASE_INPUTS.write_bytes(write_zip([(n, d, 0) for n, d in read_zip(b.getvalue())]))


# ----------------------------------------------------------------------------- zip


def read_zip(data):
    import zipfile
    z = zipfile.ZipFile(io.BytesIO(data))
    return [(i.filename, z.read(i.filename)) for i in z.infolist()]


def deflate(raw):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(raw) + c.flush()


def write_zip(entries, align=64):
    """entries: list of (name, data, method) or dicts with overrides.

    dict keys: name, data, method (0 stored / 8 deflate), comp (compressed bytes, overrides),
    usize (claimed uncompressed size), crc (claimed crc).  Stored data is 64-byte aligned
    with an extra field like PyTorch's writer (id 'FB')."""
    out = bytearray()
    cd = bytearray()
    n = 0
    for e in entries:
        if not isinstance(e, dict):
            e = dict(name=e[0], data=e[1], method=e[2])
        name = e["name"] if isinstance(e["name"], bytes) else e["name"].encode()
        raw = e["data"]
        method = e.get("method", 0)
        comp = e.get("comp", raw if method == 0 else deflate(raw))
        usize = e.get("usize", len(raw))
        crc = e.get("crc", zlib.crc32(raw) & 0xFFFFFFFF)
        off = len(out)
        extra = b""
        if method == 0 and align:
            hdr_end = off + 30 + len(name) + 4
            pad = (-hdr_end) % align
            extra = b"FB" + struct.pack("<H", pad) + b"\0" * pad
        # version 20, flags 0, time 0, date 0x21 (1980-01-01)
        lh = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc,
                         len(comp), usize, len(name), len(extra))
        out += lh + name + extra + comp
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0x21, crc,
                          len(comp), usize, len(name), 0, 0, 0, 0, 0, off) + name
        n += 1
    cd_off = len(out)
    out += cd
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(cd), cd_off, 0)
    return bytes(out)


def base_entries(path=None):
    """Entries of a base archive as [name, data, method] lists (method as torch wrote it)."""
    data = (path or BASE).read_bytes()
    import zipfile
    z = zipfile.ZipFile(io.BytesIO(data))
    return [[i.filename, z.read(i.filename), i.compress_type] for i in z.infolist()]


def get(ents, suffix):
    for e in ents:
        if e[0].endswith("/" + suffix):
            return e
    raise KeyError(suffix)


def with_record(suffix, data, path=None):
    ents = base_entries(path)
    get(ents, suffix)[1] = data
    return write_zip(ents)


def without_record(suffix, path=None):
    return write_zip([e for e in base_entries(path) if not e[0].endswith("/" + suffix)])


def zip_layout(data):
    """Offsets of interesting structures in a zip produced by write_zip."""
    eocd = data.rfind(b"PK\x05\x06")
    _, _, _, _, n, cdsize, cdoff, _ = struct.unpack_from("<IHHHHIIH", data, eocd)
    cents, p = {}, cdoff
    for _ in range(n):
        f = struct.unpack_from("<IHHHHHHIIIHHHHHII", data, p)
        name = data[p + 46:p + 46 + f[10]].decode()
        cents[name] = dict(cd=p, local=f[16])
        p += 46 + f[10] + f[11] + f[12]
    return eocd, cdoff, cents


def flip(data, pos, mask=0xFF):
    b = bytearray(data)
    b[pos] ^= mask
    return bytes(b)


# ----------------------------------------------------------------------------- pickle

def _op(code):
    return bytes([code]) if isinstance(code, int) else code.encode("latin-1")


def emit(ops):
    """ops: list of (opcode name, arg).  Re-encodes exactly (protocol 0-4 subset)."""
    out = bytearray()
    for name, arg in ops:
        if name == "RAW":  # pseudo-op: raw bytes
            out += arg
            continue
        code = OPS[name].code.encode("latin-1")
        out += code
        if name == "PROTO":
            out += bytes([arg])
        elif name in ("GLOBAL", "INST"):
            mod, _, nm = arg.partition(" ")
            out += mod.encode() + b"\n" + nm.encode() + b"\n"
        elif name in ("BINPUT", "BINGET", "BININT1"):
            out += struct.pack("<B", arg)
        elif name in ("LONG_BINPUT", "LONG_BINGET"):
            out += struct.pack("<I", arg)
        elif name == "BININT2":
            out += struct.pack("<H", arg)
        elif name == "BININT":
            out += struct.pack("<i", arg)
        elif name == "BINUNICODE":
            s = arg.encode("utf-8")
            out += struct.pack("<I", len(s)) + s
        elif name == "SHORT_BINUNICODE":
            s = arg.encode("utf-8")
            out += struct.pack("<B", len(s)) + s
        elif name == "LONG1":
            out += struct.pack("<B", len(arg)) + arg  # arg: raw little-endian bytes
        elif name == "BINFLOAT":
            out += struct.pack(">d", arg)
        elif name == "SHORT_BINSTRING":
            s = arg.encode("latin-1")
            out += struct.pack("<B", len(s)) + s
        else:
            assert OPS[name].arg is None, name
    return bytes(out)


OPS = {o.name: o for o in pickletools.opcodes}


def ops_of(data):
    return [(op.name, arg) for op, arg, _ in pickletools.genops(data)]


def long1(n):
    return n.to_bytes((n.bit_length() + 8) // 8 or 1, "little", signed=True)


def int_op(n):
    if 0 <= n < 256:
        return ("BININT1", n)
    if -2**31 <= n < 2**31:
        return ("BININT", n)
    return ("LONG1", long1(n))


def pickle_invalid(data):
    """True when pickletools.dis rejects the bytes (never executes anything)."""
    try:
        pickletools.dis(data, out=io.StringIO())
        return False
    except Exception:
        return True


def find_tensor(ops, key):
    """Index of the BINPERSID whose storage key is `key` ('0' = lin.weight)."""
    for i, (n, a) in enumerate(ops):
        if n == "BINUNICODE" and a == key and ops[i - 2][0] == "GLOBAL" and "Storage" in ops[i - 2][1]:
            j = i
            while ops[j][0] != "BINPERSID":
                j += 1
            return j
    raise KeyError(key)


def edit_weight_args(ops, fn):
    """lin.weight is _rebuild_tensor_v2((storage), 0, (3,4), (4,1), True, OrderedDict()).
    After BINPERSID + BINPUT come: offset, MARK 3 4 TUPLE, MARK 4 1 TUPLE, NEWTRUE, ...
    fn(dict) edits {'offset','size','stride'}; returns new ops."""
    j = find_tensor(ops, "0") + 2  # skip BINPERSID, BINPUT
    k = j + 1
    # parse offset, MARK ... TUPLE, MARK ... TUPLE
    assert ops[k][0] == "MARK"
    e1 = k + 1 + [n for n, _ in ops[k + 1:]].index("TUPLE")
    size = [a for _, a in ops[k + 1:e1]]
    k2 = e1 + 1
    e2 = k2 + 1 + [n for n, _ in ops[k2 + 1:]].index("TUPLE")
    stride = [a for _, a in ops[k2 + 1:e2]]
    d = dict(offset=ops[j][1], size=size, stride=stride)
    fn(d)
    new = [int_op(d["offset"]), ("MARK", None)] + [int_op(x) for x in d["size"]] + [("TUPLE", None)]
    new += [("MARK", None)] + [int_op(x) for x in d["stride"]] + [("TUPLE", None)]
    return ops[:j] + new + ops[e2 + 1:]


# ----------------------------------------------------------------------------- cases

# Bases are needed while registering cases (the data.pkl flip search reads them).
# torch orders a class's Final constants by Python set iteration: pin the hash seed.
if "--rebuild-base" in sys.argv or not BASE.exists() or not BASE_INPUTS.exists():
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(TORCH_PY, [TORCH_PY, __file__, "--rebuild-base"] + sys.argv[1:],
                  dict(os.environ, PYTHONHASHSEED="0"))
    OUT.mkdir(parents=True, exist_ok=True)
    build_bases()

CASES = {}


def case(name, what, mentions="", command="info", torch="rejects", may_succeed=False):
    """torch: how torch.jit.load (or torch.load(weights_only=True) for run-inputs) treats it:
    'rejects' (raises), 'accepts', 'crashes' (killed by a signal)."""
    def deco(fn):
        CASES[name] = dict(fn=fn, what=what, mentions=mentions.lower(), command=command,
                           torch=torch, may_succeed=may_succeed)
        return fn
    return deco


def base():
    return BASE.read_bytes()


def data_pkl():
    return get(base_entries(), "data.pkl")[1]


def with_pkl(p):
    return with_record("data.pkl", p)


def P(*ops):
    """A protocol-2 pickle from ops, STOP appended unless the last op is RAW/STOP."""
    ops = [("PROTO", 2)] + list(ops)
    if ops[-1][0] not in ("STOP", "RAW"):
        ops.append(("STOP", None))
    return emit(ops)


# --- whole-file truncation / not a zip
for pct in (10, 50, 90):
    case(f"truncated_{pct}pct", f"archive cut to its first {pct}% of bytes")(
        lambda pct=pct: base()[:len(base()) * pct // 100])
case("truncated_eocd", "archive with the last 10 bytes of the end-of-central-directory record cut off")(
    lambda: base()[:-10])
case("truncated_no_eocd", "archive with the whole end-of-central-directory record removed")(
    lambda: base()[:-22])
case("empty_file", "0-byte file")(lambda: b"")
case("one_byte", "1-byte file ('P')")(lambda: b"P")
case("not_a_zip", "a plain text file, not a zip")(
    lambda: b"this is not a TorchScript archive\njust some text\n" * 4)
case("zip_no_data_pkl", "valid zip with every record except data.pkl", "data.pkl")(
    lambda: without_record("data.pkl"))
case("empty_zip", "valid zip with no entries at all")(lambda: write_zip([]))
case("missing_version", "archive without the version record", "version")(
    lambda: without_record("version"))
case("version_non_numeric", "version record is 'abc\\n'", "version")(
    lambda: with_record("version", b"abc\n"))
case("version_zero", "version record is '0' (below any supported format)", "version")(
    lambda: with_record("version", b"0\n"))
case("version_absurd", "version record is '999999'", "version")(
    lambda: with_record("version", b"999999\n"))
case("version_overflow", "version record is a 30-digit number (overflows int64)", "version")(
    lambda: with_record("version", b"9" * 30 + b"\n"))
case("missing_storage_data0", "storage record data/0 (lin.weight) removed", "data/0")(
    lambda: without_record("data/0"))
case("storage_short_data0",
     "data/0 (lin.weight, 3x4 float32 = 48 bytes) cut to 20 bytes, data.pkl still says numel 12: "
     "torch.jit.load 1.13 silently ACCEPTS it (ignores numel and the record size)", "data/0", torch="accepts")(
    lambda: with_record("data/0", get(base_entries(), "data/0")[1][:20]))
@case("storage_short_silently_accepted",
     "data/0 cut to 40 bytes (tensor needs 48) AND its numel in data.pkl lowered to 10 to match: "
     "torch.jit.load 1.13 ACCEPTS this and builds a 3x4 tensor reading past the storage", "data/0",
     torch="accepts")
def _short_consistent():
    ops = ops_of(data_pkl())
    j = find_tensor(ops, "0")
    assert ops[j - 2] == ("BININT1", 12)
    ops[j - 2] = ("BININT1", 10)
    ents = base_entries()
    get(ents, "data/0")[1] = get(ents, "data/0")[1][:40]
    get(ents, "data.pkl")[1] = emit(ops)
    return write_zip(ents)


case("byteorder_big", "2.x-style byteorder record saying 'big' (torch 1.13 ignores the record)",
     "byteorder", torch="accepts")(
    lambda: write_zip(base_entries() + [["archive/byteorder", b"big", 0]]))

# --- zip structure flips
@case("flip_cd_signature", "first central-directory entry's signature byte flipped")
def _():
    d = base(); _, cdoff, _ = zip_layout(d); return flip(d, cdoff)


@case("flip_cd_local_offset", "central-directory entry of data.pkl: high byte of the local-header offset flipped")
def _():
    d = base(); _, _, c = zip_layout(d); return flip(d, c["archive/data.pkl"]["cd"] + 45, 0x40)


@case("flip_cd_size", "central-directory entry of data/0: compressed+uncompressed size set to 0x4000_0030",
      "")
def _():
    d = bytearray(base()); _, _, c = zip_layout(bytes(d)); p = c["archive/data/0"]["cd"]
    d[p + 23] ^= 0x40; d[p + 27] ^= 0x40; return bytes(d)


@case("flip_cd_name", "central-directory name of data.pkl changed to 'data.pkm' (so data.pkl is missing)",
      "data.pkl")
def _():
    d = base(); _, _, c = zip_layout(d); p = c["archive/data.pkl"]["cd"]
    return flip(d, p + 46 + len("archive/data.pk"), ord("l") ^ ord("m"))


@case("flip_eocd_cd_offset", "end-of-central-directory: central-directory offset points past the file")
def _():
    d = base(); e, _, _ = zip_layout(d); return flip(d, e + 19, 0x7F)


@case("flip_eocd_count", "end-of-central-directory: entry count says 0x7Fxx entries")
def _():
    d = base(); e, _, _ = zip_layout(d); return flip(d, e + 11, 0x7F)


@case("flip_local_signature", "local header signature of data.pkl flipped", "data.pkl")
def _():
    d = base(); _, _, c = zip_layout(d); return flip(d, c["archive/data.pkl"]["local"] + 1)


@case("flip_local_extra_len", "local header of data.pkl: extra-field length +0x100, so its data starts 256 bytes late",
      "data.pkl")
def _():
    d = base(); _, _, c = zip_layout(d); return flip(d, c["archive/data.pkl"]["local"] + 29, 0x01)


@case("flip_local_method", "local header of data/0: compression method set to 0x0800 (unknown); the "
      "central directory still says stored, which torch 1.13 (and libzip) use", "data/0", torch="accepts",
      may_succeed=True)
def _():
    d = base(); _, _, c = zip_layout(d)
    return flip(d, c["archive/data/0"]["local"] + 9, 0x08)


@case("flip_data0_crc", "one payload byte of data/0 flipped so it no longer matches the stored CRC-32 (torch 1.13 does "
      "not check CRCs; a reader that maps stored entries without CRC checks may accept it)",
      "data/0", torch="accepts", may_succeed=True)
def _():
    d = base(); _, _, c = zip_layout(d); lo = c["archive/data/0"]["local"]
    nl, xl = struct.unpack_from("<HH", d, lo + 26)
    return flip(d, lo + 30 + nl + xl + 5, 0x01)


@case("flip_local_name", "local header name of data.pkl differs from the central directory's "
      "('data.pkm'); readers that use the central directory still find everything",
      "data.pkl", torch="accepts", may_succeed=True)
def _():
    d = base(); _, _, c = zip_layout(d); p = c["archive/data.pkl"]["local"]
    return flip(d, p + 30 + len("archive/data.pk"), ord("l") ^ ord("m"))


# --- data.pkl single-byte flips at fixed seeds (only invalid pickles kept as must-fail)
def _pkl_flip(seed):
    p = data_pkl(); r = random.Random(seed)
    pos = r.randrange(2, len(p) - 1); bit = 1 << r.randrange(8)
    return pos, bit, flip(p, pos, bit)


_kept = 0
for seed in range(1, 400):
    pos, bit, fp = _pkl_flip(seed)
    if not pickle_invalid(fp) or _kept >= 6:
        continue
    _kept += 1
    case(f"flip_pkl_seed{seed}", f"data.pkl byte {pos} xor 0x{bit:02x} (random.Random({seed})); "
         "pickletools.dis rejects it", "data.pkl")(lambda fp=fp: with_pkl(fp))
_kept = 0
for seed in range(1, 400):
    pos, bit, fp = _pkl_flip(seed)
    if pickle_invalid(fp) or _kept >= 3:
        continue
    _kept += 1
    case(f"flip_pkl_valid_seed{seed}", f"data.pkl byte {pos} xor 0x{bit:02x} (random.Random({seed})); "
         "still a well-formed pickle, may or may not load", "", torch="any", may_succeed=True)(
        lambda fp=fp: with_pkl(fp))

# --- malicious globals
RCE_CMD = "echo pwned > " + PWNED
RCE = b"cos\nsystem\n(S'" + RCE_CMD.encode() + b"'\ntR."
case("pkl_os_system", "data.pkl is the classic `cos\\nsystem\\n(S'echo pwned...'\\ntR.` payload",
     "data.pkl")(lambda: with_pkl(RCE))
case("pkl_os_system_proto2", "the os.system payload as a protocol-2 pickle (PROTO 2, GLOBAL 'os system', "
     "REDUCE)", "os.system")(lambda: with_pkl(b"\x80\x02" + RCE))


def _call(glob, *args):
    return P(("GLOBAL", glob), ("MARK", None), *[("BINUNICODE", a) for a in args],
             ("TUPLE", None), ("REDUCE", None))


case("pkl_builtins_eval", "data.pkl calls builtins.eval('__import__(\"os\").system(...)')",
     "builtins.eval")(lambda: with_pkl(_call("builtins eval", f"__import__('os').system('{RCE_CMD}')")))
case("pkl_builtins_getattr", "data.pkl calls builtins.getattr(builtins.__import__('os'), 'system') then calls it",
     "builtins.getattr")(lambda: with_pkl(P(
         ("GLOBAL", "builtins getattr"), ("MARK", None),
         ("GLOBAL", "builtins __import__"), ("MARK", None), ("BINUNICODE", "os"), ("TUPLE", None), ("REDUCE", None),
         ("BINUNICODE", "system"), ("TUPLE", None), ("REDUCE", None),
         ("MARK", None), ("BINUNICODE", RCE_CMD), ("TUPLE", None), ("REDUCE", None))))
case("pkl_subprocess_popen", "data.pkl calls subprocess.Popen(['sh','-c',...])", "subprocess.popen")(
    lambda: with_pkl(P(("GLOBAL", "subprocess Popen"), ("MARK", None), ("MARK", None),
                       ("BINUNICODE", "sh"), ("BINUNICODE", "-c"), ("BINUNICODE", RCE_CMD), ("LIST", None),
                       ("TUPLE", None), ("REDUCE", None))))
case("pkl_torch_load", "data.pkl calls torch.load('/etc/passwd')", "torch.load")(
    lambda: with_pkl(_call("torch load", "/etc/passwd")))
case("pkl_builtin_exec", "data.pkl calls __builtin__.exec (protocol-2 name of builtins.exec)",
     "__builtin__.exec")(lambda: with_pkl(_call("__builtin__ exec", f"import os; os.system('{RCE_CMD}')")))
case("pkl_inst_os_system", "data.pkl uses protocol-0 INST 'os system' (instantiates without REDUCE)",
     "data.pkl")(lambda: with_pkl(emit([("MARK", None), ("SHORT_BINSTRING", RCE_CMD),
                                         ("INST", "os system"), ("STOP", None)])))
case("pkl_stack_global_os_system", "protocol-4 STACK_GLOBAL('os','system') + REDUCE", "data.pkl")(
    lambda: with_pkl(emit([("PROTO", 4), ("SHORT_BINUNICODE", "os"), ("SHORT_BINUNICODE", "system"),
                           ("STACK_GLOBAL", None), ("SHORT_BINUNICODE", RCE_CMD), ("TUPLE1", None),
                           ("REDUCE", None), ("STOP", None)])))
case("pkl_stack_global_posix", "protocol-4 STACK_GLOBAL('posix','system')", "data.pkl")(
    lambda: with_pkl(emit([("PROTO", 4), ("SHORT_BINUNICODE", "posix"), ("SHORT_BINUNICODE", "system"),
                           ("STACK_GLOBAL", None), ("SHORT_BINUNICODE", RCE_CMD), ("TUPLE1", None),
                           ("REDUCE", None), ("STOP", None)])))
case("pkl_stack_global_non_string", "protocol-4 STACK_GLOBAL whose operands are ints, not strings", "data.pkl")(
    lambda: with_pkl(emit([("PROTO", 4), ("BININT1", 1), ("BININT1", 2), ("STACK_GLOBAL", None),
                           ("STOP", None)])))


@case("pkl_os_system_embedded", "valid module pickle where lin.weight's backward_hooks "
      "`collections.OrderedDict()` is replaced by `os.system('echo pwned...')`", "os.system")
def _():
    ops = ops_of(data_pkl())
    i = ops.index(("GLOBAL", "collections OrderedDict"))
    assert ops[i + 2] == ("EMPTY_TUPLE", None) and ops[i + 3] == ("REDUCE", None)
    ops[i:i + 4] = [("GLOBAL", "os system"), ("BINPUT", 12), ("BINUNICODE", RCE_CMD), ("TUPLE1", None),
                    ("REDUCE", None)]
    return with_pkl(emit(ops))


case("constants_os_system", "constants.pkl (instead of data.pkl) holds the os.system payload",
     "constants.pkl")(lambda: with_record("constants.pkl", b"\x80\x02" + RCE))
case("pkl_ext1_copyreg", "data.pkl uses EXT1 (copyreg extension registry code 1)", "data.pkl")(
    lambda: with_pkl(b"\x80\x02\x82\x01."))
case("pkl_unknown_class", "data.pkl's root is __torch__.Nope, a class with no code file", "nope")(
    lambda: with_pkl(emit([(n, "__torch__ Nope" if (n, a) == ("GLOBAL", "__torch__ M") else a)
                           for n, a in ops_of(data_pkl())])))

# --- structural pickle abuse
case("pkl_deep_list_nesting", "data.pkl: 100000 nested lists (EMPTY_LIST MARK ... APPENDS; record deflated)", "data.pkl")(
    lambda: write_zip([dict(name=n, data=P(("RAW", b"](" * 100000 + b"K\x01" + b"e" * 100000 + b".")) if n.endswith("data.pkl") else d,
                            method=8 if n.endswith("data.pkl") else m) for n, d, m in base_entries()]))
case("pkl_deep_marks", "data.pkl: 100000 MARKs then one EMPTY_TUPLE STOP (record deflated)", "data.pkl")(
    lambda: write_zip([dict(name=n, data=P(("RAW", b"(" * 100000 + b").")) if n.endswith("data.pkl") else d,
                            method=8 if n.endswith("data.pkl") else m) for n, d, m in base_entries()]))
case("pkl_deep_tuple_nesting", "data.pkl: 100000 nested TUPLE1 around an int (record deflated)", "data.pkl")(
    lambda: write_zip([dict(name=n, data=P(("RAW", b"K\x01" + b"\x85" * 100000 + b".")) if n.endswith("data.pkl") else d,
                            method=8 if n.endswith("data.pkl") else m) for n, d, m in base_entries()]))


@case("pkl_deep_nesting_embedded", "real module pickle whose `_is_full_backward_hook` value is 100000 nested "
      "lists (APPENDS; record deflated); torch 1.13 ACCEPTS it (no depth limit, no attribute type "
      "check); jitctl must refuse the depth", "data.pkl", torch="accepts")
def _():
    ops = ops_of(data_pkl())
    i = ops.index(("BINUNICODE", "_is_full_backward_hook"))
    assert ops[i + 2] == ("NONE", None)
    ops[i + 2:i + 3] = [("RAW", b"](" * 100000 + b"N" + b"e" * 100000)]
    return write_zip([dict(name=n, data=emit(ops) if n.endswith("data.pkl") else d,
                           method=8 if n.endswith("data.pkl") else m) for n, d, m in base_entries()])


case("pkl_huge_binunicode", "BINUNICODE claims 0xFFFFFFF0 bytes, 5 follow", "data.pkl")(
    lambda: with_pkl(b"\x80\x02X" + struct.pack("<I", 0xFFFFFFF0) + b"hello."))
case("pkl_huge_binbytes", "BINBYTES claims 0x7FFFFFFF bytes, 5 follow", "data.pkl")(
    lambda: with_pkl(b"\x80\x02B" + struct.pack("<I", 0x7FFFFFFF) + b"hello."))
case("pkl_huge_long4", "LONG4 claims 0x7FFFFFF0 bytes of integer", "data.pkl")(
    lambda: with_pkl(b"\x80\x02\x8b" + struct.pack("<i", 0x7FFFFFF0) + b"\x01\x02."))
case("pkl_huge_binstring", "BINSTRING claims 0x7FFFFFFF bytes", "data.pkl")(
    lambda: with_pkl(b"\x80\x02T" + struct.pack("<i", 0x7FFFFFFF) + b"x."))
case("pkl_long_binput_huge", "LONG_BINPUT with memo index 0xFFFFFFFF", "data.pkl",
     may_succeed=False)(lambda: with_pkl(b"\x80\x02K\x01r" + struct.pack("<I", 0xFFFFFFFF) + b"."))
case("pkl_long_binget_missing", "LONG_BINGET of memo key 0x12345678 that was never put", "data.pkl")(
    lambda: with_pkl(b"\x80\x02K\x01q\x00j" + struct.pack("<I", 0x12345678) + b"."))
case("pkl_binget_missing", "BINGET 200 in the real module pickle (memo has 0..41)", "data.pkl")(
    lambda: with_pkl(emit([("BINGET", 200) if (n, a) == ("BINGET", 6) else (n, a) for n, a in ops_of(data_pkl())])))
case("pkl_missing_stop", "data.pkl with its final STOP removed", "data.pkl")(
    lambda: with_pkl(data_pkl()[:-1]))
case("pkl_truncated_half", "data.pkl cut in half", "data.pkl")(
    lambda: with_pkl(data_pkl()[:len(data_pkl()) // 2]))
case("pkl_empty", "data.pkl is 0 bytes", "data.pkl")(lambda: with_pkl(b""))
case("pkl_trailing_garbage", "valid data.pkl followed by 16 bytes after STOP", "data.pkl",
     torch="accepts", may_succeed=True)(lambda: with_pkl(data_pkl() + b"\xde\xad\xbe\xef" * 4))
case("pkl_tuple_no_mark", "TUPLE with no MARK on the stack", "data.pkl")(
    lambda: with_pkl(b"\x80\x02K\x01t."))
case("pkl_reduce_empty_stack", "REDUCE on an empty stack: torch.jit.load 1.13 SEGFAULTS", "data.pkl",
     torch="crashes")(lambda: with_pkl(b"\x80\x02R."))
case("pkl_stop_empty_stack", "STOP on an empty stack", "data.pkl")(lambda: with_pkl(b"\x80\x02."))
case("pkl_build_on_int", "BUILD applied to an int", "data.pkl")(
    lambda: with_pkl(b"\x80\x02K\x01}b."))
case("pkl_append_to_int", "APPEND onto an int", "data.pkl")(lambda: with_pkl(b"\x80\x02K\x01K\x02a."))
case("pkl_appends_to_int", "MARK ... APPENDS onto an int", "data.pkl")(lambda: with_pkl(b"\x80\x02K\x01(K\x02e."))
case("pkl_setitems_odd", "SETITEMS with an odd number of items after MARK", "data.pkl")(
    lambda: with_pkl(b"\x80\x02}(K\x01K\x02K\x03u."))
case("pkl_setitem_on_list", "SETITEM on a list", "data.pkl")(lambda: with_pkl(b"\x80\x02]K\x01K\x02s."))
case("pkl_unknown_opcode", "opcode byte 0xff", "data.pkl")(lambda: with_pkl(b"\x80\x02\xff."))
case("pkl_proto_99", "PROTO 99", "data.pkl")(lambda: with_pkl(b"\x80\x63N."))
case("pkl_global_no_newline", "GLOBAL whose name is not newline-terminated before end of data",
     "data.pkl")(lambda: with_pkl(b"\x80\x02c__torch__ M"))
case("pkl_root_not_object", "data.pkl is a valid pickle of the int 1 (root is not a module object)",
     "data.pkl")(lambda: with_pkl(b"\x80\x02K\x01."))


@case("pkl_cyclic_list", "module's `training` attribute (declared bool) is a list that contains itself "
      "(memo cycle); torch 1.13 ACCEPTS it (no attribute type check); must not hang or recurse forever",
      "data.pkl", torch="accepts", may_succeed=True)
def _():
    ops = ops_of(data_pkl())
    i = ops.index(("BINUNICODE", "training"))
    assert ops[i + 2] == ("NEWFALSE", None)
    ops[i + 2:i + 3] = [("EMPTY_LIST", None), ("LONG_BINPUT", 1000), ("MARK", None), ("LONG_BINGET", 1000),
                        ("APPENDS", None)]
    return with_pkl(emit(ops))


# --- persistent ids
def _persid_edit(fn):
    ops = ops_of(data_pkl())
    j = find_tensor(ops, "0")
    m = max(k for k in range(j) if ops[k][0] == "MARK")
    tup = ops[m + 1:j - 1]  # BINUNICODE storage, BINPUT, GLOBAL, BINPUT, key, BINPUT, loc, BINPUT, numel
    assert ops[j - 1][0] == "TUPLE"
    ops[m + 1:j - 1] = fn(tup)
    return with_pkl(emit(ops))


case("persid_wrong_arity", "lin.weight's persistent id tuple lacks location and numel "
     "('storage', FloatStorage, '0')", "data.pkl")(
    lambda: _persid_edit(lambda t: t[:6]))
case("persid_evil_storage", "persistent id names storage type torch.EvilStorage", "evilstorage")(
    lambda: _persid_edit(lambda t: [("GLOBAL", "torch EvilStorage") if n == "GLOBAL" else (n, a) for n, a in t]))
case("persid_os_system_type", "persistent id's storage type is os.system", "os.system")(
    lambda: _persid_edit(lambda t: [("GLOBAL", "os system") if n == "GLOBAL" else (n, a) for n, a in t]))
case("persid_negative_numel", "persistent id numel is -12", "data.pkl")(
    lambda: _persid_edit(lambda t: t[:-1] + [("BININT", -12)]))
case("persid_huge_numel", "persistent id numel is 2**62 while the storage record has 48 bytes; torch 1.13 "
     "ignores numel and accepts; a reader must at least not allocate 2**62 elements", "", torch="accepts",
     may_succeed=True)(
    lambda: _persid_edit(lambda t: t[:-1] + [("LONG1", long1(2**62))]))
case("persid_not_storage", "persistent id tag is 'module' instead of 'storage'", "data.pkl")(
    lambda: _persid_edit(lambda t: [("BINUNICODE", "module") if (n, a) == ("BINUNICODE", "storage") else (n, a)
                                    for n, a in t]))
case("persid_key_traversal", "storage key is '../../../../etc/passwd' (must be looked up in the zip only)",
     "passwd")(lambda: _persid_edit(lambda t: [("BINUNICODE", "../../../../etc/passwd") if (n, a) == ("BINUNICODE", "0")
                                              else (n, a) for n, a in t]))
case("persid_key_int", "storage key is the int 0, not the string '0'", "data.pkl", torch="any")(
    lambda: _persid_edit(lambda t: [("BININT1", 0) if (n, a) == ("BINUNICODE", "0") else (n, a) for n, a in t]))
case("persid_bad_device", "storage location is 'quantum:7'", "quantum", torch="rejects")(
    lambda: _persid_edit(lambda t: [("BINUNICODE", "quantum:7") if (n, a) == ("BINUNICODE", "cpu") else (n, a)
                                    for n, a in t]))

# --- _rebuild_tensor_v2 arguments (lin.weight)
def _tensor_edit(fn):
    return with_pkl(emit(edit_weight_args(ops_of(data_pkl()), fn)))


case("tensor_negative_size", "lin.weight sizes (-3, 4)", "data.pkl")(
    lambda: _tensor_edit(lambda d: d.update(size=[-3, 4])))
case("tensor_negative_stride", "lin.weight strides (4, -1): reaches before the storage start; torch 1.13 "
     "silently ACCEPTS it", "data.pkl",
     torch="accepts")(lambda: _tensor_edit(lambda d: d.update(stride=[4, -1])))
case("tensor_offset_beyond_storage", "lin.weight storage offset 100 (storage has 12 elements): torch "
     "1.13 silently ACCEPTS it", "",
     torch="accepts")(lambda: _tensor_edit(lambda d: d.update(offset=100)))
case("tensor_negative_offset", "lin.weight storage offset -4: torch.jit.load 1.13 silently ACCEPTS it", "data.pkl",
     torch="accepts")(
    lambda: _tensor_edit(lambda d: d.update(offset=-4)))
case("tensor_stride_too_big", "lin.weight strides (4, 100): last element at index 302 of a 12-element "
     "storage; torch 1.13 silently ACCEPTS it", "", torch="accepts")(lambda: _tensor_edit(lambda d: d.update(stride=[4, 100])))
case("tensor_numel_overflow", "lin.weight sizes (2**40, 2**40): numel overflows int64", "data.pkl")(
    lambda: _tensor_edit(lambda d: d.update(size=[2**40, 2**40], stride=[2**40, 1])))
case("tensor_size_int64_overflow", "lin.weight sizes (2**70, 4): does not fit int64", "data.pkl")(
    lambda: _tensor_edit(lambda d: d.update(size=[2**70, 4])))
case("tensor_rank_mismatch", "lin.weight has 2 sizes but 3 strides", "data.pkl", torch="any")(
    lambda: _tensor_edit(lambda d: d.update(stride=[4, 1, 1])))


@case("tensor_wrong_arity", "_rebuild_tensor_v2 called with 3 arguments (storage, offset, size)", "data.pkl")
def _():
    ops = ops_of(data_pkl())
    j = find_tensor(ops, "0")
    # args after BINPERSID,BINPUT: offset, MARK.. TUPLE (size), MARK .. TUPLE (stride), NEWTRUE, GLOBAL, BINPUT, EMPTY_TUPLE, REDUCE, TUPLE
    k = j + 2
    e1 = k + 2 + [n for n, _ in ops[k + 2:]].index("TUPLE")
    end = e1 + 1 + [n for n, _ in ops[e1 + 1:]].index("REDUCE") + 1
    assert ops[end][0] == "TUPLE"
    return with_pkl(emit(ops[:e1 + 1] + ops[end:]))


case("rebuild_not_tuple_args", "REDUCE of _rebuild_tensor_v2 with an int instead of an argument tuple",
     "data.pkl")(lambda: with_pkl(P(("GLOBAL", "torch._utils _rebuild_tensor_v2"), ("BININT1", 3), ("REDUCE", None))))
case("rebuild_sparse", "data.pkl calls torch._utils._rebuild_sparse_tensor (not in TorchScript archives)",
     "_rebuild_sparse_tensor")(lambda: with_pkl(_call("torch._utils _rebuild_sparse_tensor", "x")))

# --- code files
CODE = "code/__torch__.py"


@case("code_binary_garbage", "code/__torch__.py is 512 random bytes incl. NUL and invalid UTF-8", "__torch__.py")
def _():
    r = random.Random(1234)
    g = bytes(r.randrange(256) for _ in range(512)) + b"\x00\xff\xfe\xc0\x80"
    return with_record(CODE, g)


def _code():
    return get(base_entries(), CODE)[1].decode()


@case("code_deep_parens", "forward of __torch__.M contains `x = ((((...x...))))` with 100000 nested "
      "parentheses: torch.jit.load 1.13 SEGFAULTS (stack overflow in its recursive-descent parser)",
      "__torch__.py", torch="crashes")
def _():
    src = _code()
    anchor = "    bn = self.bn\n"
    assert anchor in src
    src = src.replace(anchor, "    x0 = " + "(" * 100000 + "x" + ")" * 100000 + "\n" + anchor)
    return with_record(CODE, src.encode())


@case("code_deep_unary", "forward contains `x0 = - - - ... x` with 50000 unary minuses: torch.jit.load 1.13 "
      "SEGFAULTS (recursive parser)", "__torch__.py", torch="crashes")
def _():
    src = _code().replace("    bn = self.bn\n", "    x0 = " + "- " * 50000 + "x\n    bn = self.bn\n")
    return with_record(CODE, src.encode())


@case("code_class_header_truncated", "code/__torch__.py ends mid-line in the class header: `class M(Modu`",
      "__torch__.py")
def _():
    return with_record(CODE, b"class M(Modu")


@case("code_truncated_mid_def", "code/__torch__.py cut in the middle of `def forward(`", "__torch__.py")
def _():
    s = _code().encode()
    return with_record(CODE, s[:s.index(b"def forward(") + 10])


@case("code_missing_class_file", "code/__torch__/torch/nn/modules/linear.py removed", "linear")
def _():
    return without_record("code/__torch__/torch/nn/modules/linear.py")


@case("code_bad_indent", "code/__torch__.py with a tab-indented line inside an otherwise space-indented class",
      "__torch__.py")
def _():
    return with_record(CODE, _code().replace("    bn = self.bn\n", "\t  bn = self.bn\n").encode())


@case("code_unknown_attr_type", "class M declares `lin : __torch__.Nope` (type not defined anywhere)", "nope")
def _():
    return with_record(CODE, _code().replace("lin : __torch__.torch.nn.modules.linear.Linear",
                                              "lin : __torch__.Nope").encode())


# --- zip layout abuse
@case("two_root_folders", "data/3 moved to a second root folder (`other/data/3`)", "")
def _():
    ents = base_entries()
    get(ents, "data/3")[0] = "other/data/3"
    return write_zip(ents)


@case("stray_second_root", "an extra record `other/extra.txt` under a second root folder; all real records intact",
      "", torch="accepts", may_succeed=True)
def _():
    return write_zip(base_entries() + [["other/extra.txt", b"hello", 0]])


@case("duplicate_data_pkl", "two entries named archive/data.pkl: first the real one, second the os.system "
      "payload (torch 1.13 reads the second)", "data.pkl", torch="rejects")
def _():
    return write_zip(base_entries() + [["archive/data.pkl", RCE, 0]])


@case("duplicate_data0_conflicting", "two entries named archive/data/0 with different sizes (48 and 8 bytes); torch 1.13 takes the "
      "first and accepts; readers disagree, so jitctl must reject",
      "data/0", torch="accepts")
def _():
    ents = base_entries()
    i = [e[0] for e in ents].index("archive/data/0")
    return write_zip(ents[:i + 1] + [["archive/data/0", b"\0" * 8, 0]] + ents[i + 1:])


@case("deflate_bomb_claimed", "data/0 deflated: 48-byte stream whose headers claim 512 MiB uncompressed "
      "(must not allocate that)", "data/0")
def _():
    ents = base_entries()
    out = []
    for n, d, m in ents:
        if n.endswith("/data/0"):
            out.append(dict(name=n, data=d, method=8, usize=512 << 20))
        else:
            out.append(dict(name=n, data=d, method=m))
    return write_zip(out)


@case("deflate_bomb_real", "data/0 deflated: ~40 KiB stream that inflates to 40 MiB of zeros while the "
      "headers claim 48 bytes (size/CRC lie); torch 1.13 inflates only 48 bytes "
      "and accepts (no CRC check)", "data/0", torch="accepts", may_succeed=True)
def _():
    big = b"\0" * (40 << 20)
    comp = deflate(big)
    ents = base_entries()
    out = []
    for n, d, m in ents:
        if n.endswith("/data/0"):
            out.append(dict(name=n, data=d, method=8, comp=comp))
        else:
            out.append(dict(name=n, data=d, method=m))
    return write_zip(out)


@case("code_deflate_corrupt", "code/__torch__.py's deflate stream has its middle bytes zeroed", "__torch__.py")
def _():
    ents = base_entries()
    out = []
    for n, d, m in ents:
        e = dict(name=n, data=d, method=m)
        if n.endswith("/" + CODE):
            c = bytearray(deflate(d)); c[10:40] = b"\xff" * 30; e["comp"] = bytes(c)
        out.append(e)
    return write_zip(out)


@case("unsupported_compression", "data.pkl stored with compression method 14 (LZMA)", "data.pkl")
def _():
    return write_zip([dict(name=n, data=d, method=14 if n.endswith("data.pkl") else m, comp=d)
                      if n.endswith("data.pkl") else (n, d, m) for n, d, m in base_entries()])


@case("encrypted_entry", "data.pkl has the 'encrypted' general-purpose flag set", "data.pkl")
def _():
    d = base(); _, _, c = zip_layout(d)
    d = flip(d, c["archive/data.pkl"]["local"] + 6, 0x01)
    return flip(d, c["archive/data.pkl"]["cd"] + 8, 0x01)


# --- text from the file that reaches messages: escaped, never printed raw to a terminal
ESCAPES = b"\x1b[31mevil\xff\xfe"


@case("zip_name_escapes", "an extra entry under a second root folder whose name holds a terminal escape "
      "(ESC [31m) and bytes that are not UTF-8; the message must show them escaped", "'\\x1b[31mevil\\xff\\xfe'",
      torch="accepts")
def _():
    return write_zip(base_entries() + [[ESCAPES + b"/x", b"hello", 0]])


@case("pkl_global_escapes", "data.pkl's GLOBAL names `os<ESC>[31m.syst<FF><FE>`: the refusal names it escaped",
      "'os\\x1b[31m.syst\\xff\\xfe'")
def _():
    return with_pkl(P(("RAW", b"cos\x1b[31m\nsyst\xff\xfe\n")))


@case("code_name_escapes", "code/__torch__.py's class is named `M<ESC>[31m`: the message shows the escape, "
      "not a red terminal", "control character 0x1b")
def _():
    return with_record(CODE, _code().replace("class M(", "class M\x1b[31m(").encode())


# --- torch.save input files (jitctl run M --inputs F)
def ibase():
    return BASE_INPUTS.read_bytes()


case("inputs_os_system", "torch.save input file whose data.pkl is the protocol-2 os.system payload",
     "os.system", command="run-inputs")(lambda: with_record("data.pkl", b"\x80\x02" + RCE, BASE_INPUTS))
case("inputs_truncated", "torch.save input file cut to 60% of its bytes", "", command="run-inputs")(
    lambda: ibase()[:len(ibase()) * 6 // 10])
case("inputs_storage_short", "torch.save input: data/0 holds 8 bytes, the 2x4 float32 tensor needs 32; "
     "torch.load 1.13 silently ACCEPTS it", "data/0", command="run-inputs", torch="accepts")(
    lambda: with_record("data/0", get(base_entries(BASE_INPUTS), "data/0")[1][:8], BASE_INPUTS))
case("inputs_missing_storage", "torch.save input without data/0", "data/0", command="run-inputs")(
    lambda: without_record("data/0", BASE_INPUTS))
case("inputs_not_a_zip", "input file is text", "", command="run-inputs")(lambda: b"1 2 3\n")
case("inputs_deep_nesting", "torch.save input whose data.pkl is 100000 nested tuples (deflated); "
     "torch.load reads it (then the call fails)", "data.pkl", command="run-inputs", torch="accepts")(lambda: write_zip(
         [dict(name=n, data=P(("RAW", b"K\x01" + b"\x85" * 100000 + b".")) if n.endswith("data.pkl") else d,
               method=8 if n.endswith("data.pkl") else m) for n, d, m in base_entries(BASE_INPUTS)]))


# ----------------------------------------------------------------------------- several models
# The same kinds of damage again, each made from three more models (so that a reader's checks are
# not tuned to one archive's layout): a traced CNN, a scripted model with a loop and a branch, and
# a traced transformer encoder layer. Each base and a valid input file for it are written by torch
# once (in a fresh process each, with the hash seed pinned) and kept here as base_NAME.pt and
# base_NAME_inputs.pt; every variant is byte-level editing of those, as above.

BUILD_BASE_CHILD = r"""
import io, sys, torch
name, out, inputs_out = sys.argv[1:4]
torch.manual_seed(0)
if name == "cnn_traced":
    class CNN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3)
            self.fc = torch.nn.Linear(4, 2)
        def forward(self, x):
            return self.fc(torch.relu(self.conv(x)).mean([2, 3]))
    args = (torch.rand(1, 3, 8, 8),)
    m = torch.jit.trace(CNN().eval(), args)
elif name == "flow_scripted":
    class Flow(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)
        def forward(self, x, n: int):
            for i in range(n):
                if bool(x.sum() > 0):
                    x = self.lin(x)
                else:
                    x = x - 1.0
            return x
    args = (torch.rand(2, 4), 3)
    m = torch.jit.script(Flow().eval())
elif name == "transformer_traced":
    layer = torch.nn.TransformerEncoderLayer(d_model=4, nhead=1, dim_feedforward=8, dropout=0.0, batch_first=True)
    args = (torch.rand(1, 3, 4),)
    m = torch.jit.trace(layer.eval(), args)
b = io.BytesIO()
torch.jit.save(m, b)
open(out, "wb").write(b.getvalue())
b = io.BytesIO()
torch.save(args, b)
open(inputs_out, "wb").write(b.getvalue())
"""

MODEL_BASES = {
    "cnn_traced": "traced CNN (Conv2d(3,4,3), ReLU, mean, Linear(4,2)); forward(x: float32[1,3,8,8])",
    "flow_scripted": "scripted loop and branch over Linear(4,4); forward(x: float32[2,4], n: int)",
    "transformer_traced": "traced TransformerEncoderLayer(d_model=4, nhead=1, dim_feedforward=8); "
                          "forward(src: float32[1,3,4])",
}


def model_base(name):
    return OUT / f"base_{name}.pt"


def model_inputs(name):
    return OUT / f"base_{name}_inputs.pt"


def build_model_base(name):
    """torch writes the model and its inputs; kept as the other bases are: no debug records (they
    hold this machine's paths), code deflated, everything else stored and aligned."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        raw, raw_in, child = Path(tmp) / "m.pt", Path(tmp) / "in.pt", Path(tmp) / "build_base.py"
        child.write_text(BUILD_BASE_CHILD)  # torch.jit.script reads a class's source from its file
        subprocess.run([TORCH_PY, str(child), name, str(raw), str(raw_in)], check=True,
                       env=dict(os.environ, PYTHONHASHSEED="0"), stderr=subprocess.DEVNULL)
        ents = [(n, d, 8 if n.endswith(".py") else 0) for n, d in read_zip(raw.read_bytes())
                if not n.endswith(".debug_pkl")]
        model_base(name).write_bytes(write_zip(ents))
        model_inputs(name).write_bytes(write_zip([(n, d, 0) for n, d in read_zip(raw_in.read_bytes())]))


for _name in MODEL_BASES:
    if "--rebuild-base" in sys.argv or not model_base(_name).exists() or not model_inputs(_name).exists():
        build_model_base(_name)


def root_code_record(path):
    """The code record of the archive's root class: data.pkl's first GLOBAL names it."""
    ops = ops_of(get(base_entries(path), "data.pkl")[1])
    module, _, _ = next(a for n, a in ops if n == "GLOBAL").partition(" ")
    return "code/" + module.replace(".", "/") + ".py", module


def root_class(path):
    ops = ops_of(get(base_entries(path), "data.pkl")[1])
    module, _, cls = next(a for n, a in ops if n == "GLOBAL").partition(" ")
    return f"{module}.{cls}", cls


def forward_body_at(src, cls):
    """Offset of the first body line of `cls`'s forward, and the body's indentation."""
    start = src.index(f"class {cls}(")
    d = src.index("  def forward(", start)
    colon = src.index(":\n", src.index(")", d))
    return colon + 2, "    "


def with_code_edit(path, edit):
    rec, _ = root_code_record(path)
    src = get(base_entries(path), rec)[1].decode()
    return with_record(rec, edit(src).encode(), path)


def insert_in_forward(path, lines):
    qualified, cls = root_class(path)

    def edit(src):
        at, indent = forward_body_at(src, cls)
        return src[:at] + "".join(indent + ln + "\n" for ln in lines) + src[at:]
    return with_code_edit(path, edit)


def largest_storage(path):
    ents = [e for e in base_entries(path) if "/data/" in e[0] and e[0].rsplit("/", 1)[1].isdigit()]
    return max(ents, key=lambda e: (len(e[1]), e[0]))[0].split("/", 1)[1]


def first_tensor_args(ops):
    """Index just past the first tensor's storage (BINPERSID and its BINPUT) in a data.pkl."""
    j = next(i for i, (n, _) in enumerate(ops) if n == "BINPERSID")
    return j + 1 + (ops[j + 1][0] in ("BINPUT", "LONG_BINPUT"))


def tensor_huge_size(path):
    """The first tensor's sizes become (2**40, 2**40): numel overflows int64."""
    ops = ops_of(get(base_entries(path), "data.pkl")[1])
    k = first_tensor_args(ops) + 1  # skip the storage offset
    assert ops[k][0] == "MARK", ops[k]
    e = k + 1 + [n for n, _ in ops[k + 1:]].index("TUPLE")
    ops[k + 1:e] = [int_op(2**40)] * (e - k - 1)
    return with_record("data.pkl", emit(ops), path)


def pkl_flip_invalid(path):
    p = get(base_entries(path), "data.pkl")[1]
    for seed in range(1, 1000):
        r = random.Random(seed)
        pos, bit = r.randrange(2, len(p) - 1), 1 << r.randrange(8)
        fp = flip(p, pos, bit)
        if pickle_invalid(fp):
            return with_record("data.pkl", fp, path)
    raise RuntimeError("no invalid flip")


def embedded_global(path):
    """A real module pickle whose first tensor's backward_hooks OrderedDict() is os.system(...)."""
    ops = ops_of(get(base_entries(path), "data.pkl")[1])
    i = next(k for k, (n, a) in enumerate(ops) if (n, a) == ("GLOBAL", "collections OrderedDict"))
    j = i + 1 + (ops[i + 1][0] in ("BINPUT", "LONG_BINPUT"))
    assert ops[j] == ("EMPTY_TUPLE", None) and ops[j + 1] == ("REDUCE", None), ops[i:j + 2]
    ops[i:j + 2] = [("GLOBAL", "os system"), ("BINUNICODE", RCE_CMD), ("TUPLE1", None), ("REDUCE", None)]
    return with_record("data.pkl", emit(ops), path)


def embedded_deep_nesting(path):
    """The root module's `training` flag becomes 100000 nested lists (data.pkl deflated)."""
    ops = ops_of(get(base_entries(path), "data.pkl")[1])
    i = ops.index(("BINUNICODE", "training"))
    k = i + 1 + (ops[i + 1][0] in ("BINPUT", "LONG_BINPUT"))
    assert ops[k][0] in ("NEWTRUE", "NEWFALSE"), ops[k]
    ops[k:k + 1] = [("RAW", b"](" * 100000 + b"N" + b"e" * 100000)]
    return write_zip([dict(name=n, data=emit(ops) if n.endswith("/data.pkl") else d,
                           method=8 if n.endswith("/data.pkl") else m) for n, d, m in base_entries(path)])


def huge_length(path):
    """data.pkl's first BINUNICODE claims 0xFFFFFFF0 bytes (and the pickle ends soon after)."""
    ops = ops_of(get(base_entries(path), "data.pkl")[1])
    i = next(k for k, (n, _) in enumerate(ops) if n == "BINUNICODE")
    ops[i:] = [("RAW", b"X" + struct.pack("<I", 0xFFFFFFF0) + b"hello.")]
    return with_record("data.pkl", emit(ops), path)


def without_root_code(path):
    return without_record(root_code_record(path)[0], path)


def garbage_code(path):
    r = random.Random(4321)
    return with_record(root_code_record(path)[0], bytes(r.randrange(256) for _ in range(512)), path)


def inline_chain(path):
    """forward calls h0, h0 calls h1, ... 300 deep: each is fine, inlining them all is not."""
    qualified, cls = root_class(path)

    def edit(src):
        at = src.index("  def forward(", src.index(f"class {cls}("))
        methods = "".join(f"  def h{i}(self: {qualified},\n    v: int) -> int:\n    return (self).h{i + 1}(v, )\n"
                          for i in range(300))
        methods += f"  def h300(self: {qualified},\n    v: int) -> int:\n    return v\n"
        src = src[:at] + methods + src[at:]
        b, indent = forward_body_at(src, cls)
        return src[:b] + indent + "_h = (self).h0(1, )\n" + src[b:]
    return with_code_edit(path, edit)


def model_kinds(name):
    path = model_base(name)
    code_rec, _ = root_code_record(path)
    code_name = code_rec.rsplit("/", 1)[1]
    big = largest_storage(path)
    ibase = model_inputs(name)
    return {
        "truncated_50pct": ("archive cut to its first half", "", lambda: path.read_bytes()[:len(path.read_bytes()) // 2]),
        "truncated_no_eocd": ("archive without its end-of-central-directory record", "",
                              lambda: path.read_bytes()[:-22]),
        "flip_cd_signature": ("first central-directory entry's signature byte flipped", "",
                              lambda: flip(path.read_bytes(), zip_layout(path.read_bytes())[1])),
        "flip_pkl": ("one bit of data.pkl flipped (the first seed pickletools rejects)", "data.pkl",
                     lambda: pkl_flip_invalid(path)),
        "pkl_os_system": ("data.pkl replaced by the protocol-2 os.system payload", "os.system",
                          lambda: with_record("data.pkl", b"\x80\x02" + RCE, path)),
        "pkl_os_system_embedded": ("the real module pickle with the first tensor's backward hooks "
                                   "`OrderedDict()` replaced by `os.system(...)`", "os.system",
                                   lambda: embedded_global(path)),
        "pkl_deep_nesting_embedded": ("the root module's `training` flag is 100000 nested lists", "data.pkl",
                                      lambda: embedded_deep_nesting(path)),
        "pkl_huge_length": ("data.pkl's first BINUNICODE claims 0xFFFFFFF0 bytes", "data.pkl",
                            lambda: huge_length(path)),
        "tensor_huge_size": ("the first tensor's sizes are (2**40, 2**40)", "data.pkl",
                             lambda: tensor_huge_size(path)),
        "missing_data_pkl": ("data.pkl removed", "data.pkl", lambda: without_record("data.pkl", path)),
        "missing_version": ("the version record removed", "version", lambda: without_record("version", path)),
        "missing_code": (f"the root class's code record {code_rec} removed", code_name.removesuffix(".py"),
                         lambda: without_root_code(path)),
        "missing_storage": ("storage record data/0 removed", "data/0", lambda: without_record("data/0", path)),
        "short_storage": (f"the largest storage {big} cut to half its bytes", big,
                          lambda: with_record(big, get(base_entries(path), big)[1][:len(get(base_entries(path), big)[1]) // 2], path)),
        "code_garbage": (f"{code_rec} is 512 random bytes", code_name, lambda: garbage_code(path)),
        "code_deep_parens": ("forward starts with `_x = ((((1))))`, 100000 parentheses deep", code_name,
                             lambda: insert_in_forward(path, ["_x = " + "(" * 100000 + "1" + ")" * 100000])),
        "code_deep_elif": ("forward starts with an if and 300 elifs (each nests one block deeper)", code_name,
                           lambda: insert_in_forward(path, ["if 1 == 0:", "  _y = 0"] +
                                                     [ln for i in range(1, 301) for ln in (f"elif 1 == {i}:", f"  _y = {i}")])),
        "code_inline_chain": ("forward calls h0, which calls h1, ... h300: calls nest 300 deep once inlined",
                              "calls nest", lambda: inline_chain(path)),
        "inputs_truncated": ("a valid input file for the model, cut to 60% of its bytes", "",
                             lambda: ibase.read_bytes()[:len(ibase.read_bytes()) * 6 // 10]),
        "inputs_short_storage": ("a valid input file whose data/0 holds 8 bytes", "data/0",
                                 lambda: with_record("data/0", get(base_entries(ibase), "data/0")[1][:8], ibase)),
    }


for _name, _what in MODEL_BASES.items():
    for _kind, (_desc, _mentions, _fn) in model_kinds(_name).items():
        _inputs = _kind.startswith("inputs_")
        # Inlining is what fails on the call chain: info and dump-graph (no inlining) may read it.
        case(f"{_name}__{_kind}", f"{_what}: {_desc}", _mentions,
             command="run-inputs" if _inputs else "info", torch="any", may_succeed=_kind == "code_inline_chain")(_fn)
        CASES[f"{_name}__{_kind}"]["base"] = _name


# ----------------------------------------------------------------------------- models that run
# Well-formed models whose code is the attack: they run into the machine's limits unless jitctl's
# own (--timeout, --max-memory) stop them. Written by torch.jit.script (each in a fresh process),
# with their inputs as torch.save files, into running/ with their own running.json:
#   {"NAME": {"what", "inputs": "NAME.in.pt", "mentions": [any of these, lower case]}}
# The contract: `jitctl run NAME.pt --inputs NAME.in.pt --timeout 5 --max-memory 2G` exits 2 within
# seconds with one line containing one of `mentions`, and no signal.
RUNNING = OUT / "running"

RUN_CHILD = r"""
import io, sys, torch
from typing import Any, List
name, out, inputs_out = sys.argv[1:4]


class AllocHuge(torch.nn.Module):
    def forward(self, x):
        return torch.zeros([100000, 100000, 100]) + x


class LoopForever(torch.nn.Module):
    def forward(self, x):
        while True:
            x = x + 1
        return x


class ListGrow(torch.nn.Module):
    def forward(self, x):
        chunk = "x"
        for k in range(10):
            chunk = chunk + chunk
        grown: List[str] = []
        i = 0
        while len(grown) >= 0:
            grown.append(chunk + str(i))
            i += 1
        return x + len(grown)


class TensorDoubling(torch.nn.Module):
    def forward(self, x):
        while x.numel() > 0:
            x = torch.cat([x, x])
        return x


class StringDoubling(torch.nn.Module):
    def forward(self, x):
        s = "ab"
        while len(s) > 0:
            s = s + s
        return x


class DeepValue(torch.nn.Module):
    def forward(self, x, n: int):
        z: List[Any] = []
        for i in range(n):
            w: List[Any] = [z]
            z = w
        return z


class LongKernel(torch.nn.Module):
    def forward(self, x):
        a = torch.ones([8000, 8000], dtype=torch.float64)
        return torch.mm(a, a) + x


class ShapeOverflow(torch.nn.Module):
    def forward(self, x):
        return torch.zeros([4294967296, 4294967296]) + x


class ExpandOverflow(torch.nn.Module):
    def forward(self, x):
        return x.expand([4294967296, 4294967296]).sum()


class Recursion(torch.nn.Module):
    def forward(self, x):
        return self.a(x)

    @torch.jit.export
    def a(self, x):
        return self.b(x)

    @torch.jit.export
    def b(self, x):
        return torch.relu(x)


models = {"alloc_huge": (AllocHuge, (torch.ones(2),)), "loop_forever": (LoopForever, (torch.ones(2),)),
          "list_grow": (ListGrow, (torch.ones(2),)), "tensor_doubling": (TensorDoubling, (torch.ones(2),)),
          "string_doubling": (StringDoubling, (torch.ones(2),)), "deep_value": (DeepValue, (torch.ones(2), 1000000)),
          "long_kernel": (LongKernel, (torch.ones(2),)), "recursion": (Recursion, (torch.ones(2),)),
          "shape_overflow": (ShapeOverflow, (torch.ones(2),)), "expand_overflow": (ExpandOverflow, (torch.ones(1),))}
cls, args = models[name]
b = io.BytesIO()
torch.jit.save(torch.jit.script(cls()), b)
open(out, "wb").write(b.getvalue())
b = io.BytesIO()
torch.save(args, b)
open(inputs_out, "wb").write(b.getvalue())
"""

RUNNING_MODELS = {
    "alloc_huge": ("forward returns torch.zeros([100000, 100000, 100]) + x: 3.6 TiB asked at once",
                   ["--max-memory", "aten::zeros"]),
    "loop_forever": ("forward is `while True: x = x + 1`", ["timed out after 5 s"]),
    "list_grow": ("forward appends a new 1024-character string to a list forever (memory that is not a tensor's)",
                  ["--max-memory", "timed out after 5 s"]),
    "tensor_doubling": ("forward doubles a tensor with torch.cat forever (on a slow machine the 5 s may come first)",
                        ["--max-memory", "timed out after 5 s"]),
    "string_doubling": ("forward doubles a string forever (s = s + s)", ["--max-memory", "timed out after 5 s"]),
    "deep_value": ("forward(x, n) nests a list in a list n = 1000000 times and returns it",
                   ["nests more than 1000 levels deep"]),
    "long_kernel": ("forward multiplies two 8000x8000 float64 matrices: one kernel of ~1 TFLOP, no loop to stop at",
                    ["timed out after 5 s"]),
    "shape_overflow": ("forward returns torch.zeros([2**32, 2**32]): 2**64 elements, which wrap to 0 in int64",
                       ["storage size calculation overflowed"]),
    "expand_overflow": ("forward sums x.expand([2**32, 2**32]): a view of 2**64 elements",
                        ["storage size calculation overflowed"]),
    "recursion": ("forward calls a, a calls b, and b (its code edited after saving) calls a again: TorchScript "
                  "has no recursion", ["recursive call"]),
}


def build_running(name):
    import tempfile
    RUNNING.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        raw, raw_in, child = Path(tmp) / "m.pt", Path(tmp) / "in.pt", Path(tmp) / "hostile_models.py"
        child.write_text(RUN_CHILD)
        subprocess.run([TORCH_PY, str(child), name, str(raw), str(raw_in)], check=True,
                       env=dict(os.environ, PYTHONHASHSEED="0"), stderr=subprocess.DEVNULL)
        ents = [[n, d, 8 if n.endswith(".py") else 0] for n, d in read_zip(raw.read_bytes())
                if not n.endswith(".debug_pkl")]
        if name == "recursion":
            code = get(ents, "code/__torch__.py")
            src = code[1].decode()
            old = "  def b(self: __torch__.Recursion,\n    x: Tensor) -> Tensor:\n    return torch.relu(x)\n"
            assert old in src, src
            code[1] = src.replace(old, old.replace("torch.relu(x)", "(self).a(x, )")).encode()
        (RUNNING / f"{name}.pt").write_bytes(write_zip(ents))
        (RUNNING / f"{name}.in.pt").write_bytes(write_zip([(n, d, 0) for n, d in read_zip(raw_in.read_bytes())]))


def generate_running():
    expect = {}
    for name, (what, mentions) in RUNNING_MODELS.items():
        if "--rebuild-base" in sys.argv or not (RUNNING / f"{name}.pt").exists():
            build_running(name)
        expect[name] = dict(what=what, inputs=f"{name}.in.pt", mentions=[m.lower() for m in mentions])
    (RUNNING / "running.json").write_text(json.dumps(expect, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(expect)} running models to {RUNNING}")


# ----------------------------------------------------------------------------- main

def generate():
    OUT.mkdir(parents=True, exist_ok=True)
    keep = {"base_valid.pt", "base_inputs_valid.pt"} | {p.name for n in MODEL_BASES for p in (model_base(n), model_inputs(n))}
    for f in OUT.glob("*.pt"):
        if f.name not in keep:
            f.unlink()
    expect = {}
    total = 0
    for name, c in CASES.items():
        data = c["fn"]()
        assert len(data) < 50 * 1024, (name, len(data))
        (OUT / f"{name}.pt").write_bytes(data)
        total += len(data)
        e = dict(what=c["what"], mentions=c["mentions"], command=c["command"])
        if "base" in c:  # the model that `run` loads, and its valid inputs
            e["model"] = model_base(c["base"]).name
            e["inputs"] = model_inputs(c["base"]).name
        if c["may_succeed"]:
            e["may_succeed"] = True
        e["torch_1_13"] = c["torch"]
        expect[name] = e
    (OUT / "expect.json").write_text(json.dumps(expect, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(expect)} cases, {total} bytes, to {OUT}")
    return expect


VERIFY_CHILD = r"""
import resource, sys, io
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
import torch
path, cmd = sys.argv[1], sys.argv[2]
if cmd == 'run-inputs':
    inp = torch.load(path, weights_only=True)   # restricted unpickler: never runs payloads
    print('LOADED-INPUTS', flush=True)
    m = torch.jit.load(sys.argv[3])
    m(*inp) if isinstance(inp, tuple) else m(inp)
else:
    m = torch.jit.load(path)
    for n, p in m.named_parameters(): p.sum()
    for n, p in m.named_buffers(): p.sum()
print('ALL-OK')
"""


def verify(expect):
    import concurrent.futures as cf
    if os.path.exists(PWNED):
        os.unlink(PWNED)

    def one(name):
        c = expect[name]
        try:
            r = subprocess.run([TORCH_PY, "-c", VERIFY_CHILD, str(OUT / f"{name}.pt"), c["command"],
                                str(OUT / c.get("model", BASE.name))],
                               capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return name, "hang", ""
        if r.returncode < 0:
            return name, "crashes", f"signal {-r.returncode}"
        if r.returncode == 0 and "ALL-OK" in r.stdout:
            return name, "accepts", ""
        if c["command"] == "run-inputs" and "LOADED-INPUTS" in r.stdout:
            got = "accepts"  # torch.load read the file; the model call itself failed
            last = [ln for ln in r.stderr.strip().splitlines() if ln.strip()]
            return name, got, "(load ok, call failed) " + (last[-1] if last else "")[:120]
        last = [ln for ln in r.stderr.strip().splitlines() if ln.strip()]
        return name, "rejects", (last[-1] if last else f"rc {r.returncode}")[:160]

    bad = 0
    with cf.ThreadPoolExecutor(2) as ex:
        for name, got, msg in ex.map(one, sorted(expect)):
            want = expect[name]["torch_1_13"]
            ok = want == "any" or got == want
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {name:34s} torch={got:8s} {msg}")
    for n in ("base_valid.pt", "base_inputs_valid.pt"):
        cmd = "run-inputs" if "inputs" in n else "info"
        r = subprocess.run([TORCH_PY, "-c", VERIFY_CHILD, str(OUT / n), cmd, str(BASE)], capture_output=True,
                           text=True)
        print(("ok " if "ALL-OK" in r.stdout else "BAD"), n, "(valid control)", r.stderr[-300:])
        bad += "ALL-OK" not in r.stdout
    if os.path.exists(PWNED):
        print("BAD: payload executed!", PWNED)
        bad += 1
    return bad


if __name__ == "__main__":
    exp = generate()
    generate_running()
    if "--verify" in sys.argv:
        sys.exit(1 if verify(exp) else 0)
