"""Median latency of one ONNX model under ONNX Runtime, for speed_side_by_side.py.

Runs in an interpreter that has onnxruntime (a venv outside the repository: Debian has no
onnxruntime package). Prints one JSON object: {"ms": median, "min": fastest, "version": ort's}.

Usage: ort_time.py MODEL.onnx INPUTS.npz THREADS WARMUP ITERS [wall|cpu]
(cpu: process time per call instead of wall time; "min" is then the same number)
"""
import json, statistics, sys, time

import numpy as np
import onnxruntime as ort


def main():
    path, inputs, threads, warmup, iters = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    data = np.load(inputs)
    feed = {i.name: data[f"arg{k}"] for k, i in enumerate(sess.get_inputs())}
    for _ in range(warmup):
        sess.run(None, feed)
    if len(sys.argv) > 6 and sys.argv[6] == "cpu":
        t0 = time.process_time()
        for _ in range(iters):
            sess.run(None, feed)
        ms = (time.process_time() - t0) / iters * 1e3
        print(json.dumps({"ms": ms, "min": ms, "version": ort.__version__}))
        return
    ts = []
    for _ in range(iters):
        t0 = time.perf_counter()
        sess.run(None, feed)
        ts.append(time.perf_counter() - t0)
    print(json.dumps({"ms": statistics.median(ts) * 1e3, "min": min(ts) * 1e3, "version": ort.__version__}))


if __name__ == "__main__":
    main()
