#!/usr/bin/env python3
"""ONNX Runtime's time per graph node, to set beside `JITCTL_PROFILE=shapes` when a model's
jitctl/ort ratio needs explaining layer by layer.

  /work/venv-ort/bin/python tests/bench/ort_profile.py MODEL.onnx INPUTS.npz [--threads N] [--calls K] [--top T]

INPUTS.npz holds the model's inputs as arg0, arg1, ... (speed_side_by_side.py writes one per
model into its temporary folder; or, with Debian's torch:
  /usr/bin/python3 -c "import torch, numpy as np; np.savez('x.npz', arg0=torch.load('M.in0.pt')[0].numpy())")
Sessions are built as speed_side_by_side.py's ort_time.py builds them (intra-op threads N,
sequential, all graph optimizations). Prints the total of the per-node means and of their fastest
calls, then the T slowest nodes: mean and fastest call in microseconds, op type, node name and
output shape. Profiling itself adds time to every node; compare nodes, not the total, with jitctl.
"""
import argparse
import collections
import json
import os

import numpy as np
import onnxruntime as ort


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("inputs")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    so = ort.SessionOptions()
    so.intra_op_num_threads = a.threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.enable_profiling = True
    sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
    data = np.load(a.inputs)
    feed = {i.name: data[f"arg{k}"] for k, i in enumerate(sess.get_inputs())}
    for _ in range(a.calls):
        sess.run(None, feed)
    trace = sess.end_profiling()
    with open(trace) as f:
        events = json.load(f)
    os.remove(trace)
    times = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            args = e.get("args", {})
            times[(e["name"][: -len("_kernel_time")], args.get("op_name", "?"), str(args.get("output_type_shape", "")))].append(e["dur"])
    rows = sorted(((sum(v) / len(v), min(v), k) for k, v in times.items()), reverse=True)
    print(f"onnxruntime {ort.__version__}, {a.threads} thread(s), {a.calls} calls: "
          f"sum of node means {sum(r[0] for r in rows):.0f} us, of fastest calls {sum(r[1] for r in rows):.0f} us")
    for mean, fastest, (name, op, shape) in rows[: a.top]:
        print(f"{mean:9.1f} {fastest:9.1f}  {op:16s} {name[:48]:48s} {shape[:70]}")


if __name__ == "__main__":
    main()
