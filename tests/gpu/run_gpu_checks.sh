#!/usr/bin/env bash
# The GPU checks in one go, for a machine with an NVIDIA GPU (issue 14): the CUDA kernel and corpus
# tests (tests/cuda), then ResNet-18 timed by `jitctl bench --device cuda` beside PyTorch's
# torch.jit.load on the same GPU, and beside jitctl on the CPU.
#   tests/gpu/run_gpu_checks.sh BINDIR OUTDIR
# BINDIR holds jitctl, libjitctl_cuda.so and cuda_tests (a build's cli/, kernels/cuda/ and tests/
# outputs side by side), and in BINDIR/lib the libraries they need that the machine lacks:
# tests/gpu/pack_build.sh makes such a folder from a build. PyTorch with CUDA (python3 -c 'import torch') is needed for the comparison.
set -uo pipefail
bin=$(cd "$1" && pwd)
out=$2
# At most a few files come back from a device call: the JSON reports go to $out/json, packed into
# $out/reports.tar at the end.
mkdir -p "$out/json"
root=$(cd "$(dirname "$0")/../.." && pwd)
py=${PYTHON:-python3}

# cuBLAS and cuDNN: from the system, else from PyTorch's wheels.
libs=""
for d in /usr/local/cuda/lib64 $($py -c 'import nvidia, os; p = nvidia.__path__[0]; print(" ".join(os.path.join(p, x, "lib") for x in os.listdir(p)))' 2>/dev/null); do
  [ -d "$d" ] && libs="$libs:$d"
done
export LD_LIBRARY_PATH="${bin}/lib${libs}:${LD_LIBRARY_PATH:-}"
export JITCTL_TESTDATA="$root/testdata"
J="$bin/jitctl"

section() { echo; echo "=== $*"; }
section "machine"
nvidia-smi -L
"$J" --version

section "cuda_tests (kernels against the CPU; the corpus against PyTorch's outputs; graph replay)"
timeout 300 "$bin/cuda_tests" > "$out/cuda_tests.log" 2>&1
echo "cuda_tests exit $?"
grep -E "ERROR|error:|MESSAGE: (corpus|cases|captured)|test cases|assertions" "$out/cuda_tests.log" | head -n 80

section "ResNet-18 (torchvision, random weights, traced by this machine's PyTorch)"
work=$(mktemp -d)
$py "$root/tests/gpu/torch_gpu_bench.py" make "$work"
"$J" optimize "$work/resnet18_traced.pt" -o "$work/resnet18_opt.pt"
"$J" run "$work/resnet18_opt.pt" --inputs "$work/resnet18_in_b1.pt" --device cuda -o "$work/out_cuda.pt"
"$J" run "$work/resnet18_traced.pt" --inputs "$work/resnet18_in_b1.pt" -o "$work/out_cpu.pt"
"$J" run "$work/cuda_saved.pt" --inputs "$work/cuda_saved_in.pt" --device cuda -o "$work/saved_cuda.pt"
"$J" run "$work/cuda_saved.pt" --inputs "$work/cuda_saved_in.pt" --device cpu -o "$work/saved_cpu.pt"
$py - "$work" <<'PY'
import sys, torch
w = sys.argv[1]
for name, ref in (("out_cuda", "resnet18_out_b1"), ("out_cpu", "resnet18_out_b1"), ("saved_cuda", "cuda_saved_out"), ("saved_cpu", "cuda_saved_out")):
    want = torch.load(f"{w}/{ref}.pt")
    try:
        got = torch.load(f"{w}/{name}.pt")
    except FileNotFoundError:
        print(f"{name}: missing (the run failed)")
        continue
    print(f"{name} ({ref}): max abs diff from PyTorch {float((got - want).abs().max()):.3g}, allclose(rtol=1e-3, atol=1e-4) {torch.allclose(got, want, rtol=1e-3, atol=1e-4)}")
PY

section "check-trace --device cuda (the traces run on the GPU)"
for m in resnet_block_traced cnn_basic_traced mlp_traced; do
  "$J" check-trace "$root/testdata/models/$m.pt" --inputs "$root/testdata/models/$m.in0.pt" --inputs "$root/testdata/models/$m.in1.pt" --device cuda --format json > "$out/json/ct_$m.json"; rc=$?
  cpu=$("$J" check-trace "$root/testdata/models/$m.pt" --inputs "$root/testdata/models/$m.in0.pt" --inputs "$root/testdata/models/$m.in1.pt" --format json | $py -c "import json,sys; print(json.load(sys.stdin).get('generalizes'))")
  echo "$m: exit $rc, generalizes on cuda: $($py -c "import json,sys; print(json.load(open(sys.argv[1])).get('generalizes'))" "$out/json/ct_$m.json"), on cpu: $cpu"
done

section "side by side: jitctl bench --device cuda and PyTorch torch.jit.load (median ms per call, inputs resident)"
for batch in 1 32; do
  spec="float32[$batch,3,224,224]"
  for tf in "" "--tf32"; do
    for model in resnet18_opt resnet18_traced; do
      timeout 120 "$J" bench "$work/$model.pt" --input-spec "$spec" --device cuda $tf --warmup 200 --iters 600 --rounds 3 --format json > "$out/json/jitctl_${model}_b${batch}${tf}.json" || echo "jitctl bench failed: $model b$batch $tf"
      $py -c "import json,sys; j=json.load(open(sys.argv[1])); print(f\"jitctl {sys.argv[2]:16s} batch {j['batch']:2d} {'tf32' if j['tf32'] else 'fp32'}: p50 {j['p50_ms']:.3f} ms  {j['items_per_s']:.0f} img/s  ({j['graph']}; host ops: {', '.join(j['host_ops']) or 'none'})\")" "$out/json/jitctl_${model}_b${batch}${tf}.json" "$model"
    done
    timeout 120 "$J" bench "$work/resnet18_opt.pt" --input-spec "$spec" --device cuda $tf --no-graphs --warmup 200 --iters 600 --rounds 3 --format json > "$out/json/jitctl_nographs_b${batch}${tf}.json"
    $py -c "import json,sys; j=json.load(open(sys.argv[1])); print(f\"jitctl resnet18_opt no graph batch {j['batch']:2d} {'tf32' if j['tf32'] else 'fp32'}: p50 {j['p50_ms']:.3f} ms  {j['items_per_s']:.0f} img/s\")" "$out/json/jitctl_nographs_b${batch}${tf}.json"
  done
done

section "the same with cuDNN alone (JITCTL_CUDA_CONV=cudnn: no split-K kernel) and with cuDNN's legacy algorithms alone (JITCTL_CUDNN_ENGINES=0 too), fp32"
for batch in 1 32; do
  for setting in "JITCTL_CUDA_CONV=cudnn" "JITCTL_CUDA_CONV=cudnn JITCTL_CUDNN_ENGINES=0"; do
    env $setting timeout 120 "$J" bench "$work/resnet18_opt.pt" --input-spec "float32[$batch,3,224,224]" --device cuda --warmup 200 --iters 600 --rounds 3 --format json > "$out/json/jitctl_cudnn_b$batch.json"
    $py -c "import json,sys; j=json.load(open(sys.argv[1])); print(f\"jitctl resnet18_opt {sys.argv[2]} batch {j['batch']:2d}: p50 {j['p50_ms']:.3f} ms  {j['items_per_s']:.0f} img/s\")" "$out/json/jitctl_cudnn_b$batch.json" "$setting"
  done
done

section "PyTorch $($py -c 'import torch; print(torch.__version__)'): torch.jit.load of the traced archive, same GPU"
$py "$root/tests/gpu/torch_gpu_bench.py" time "$work/resnet18_traced.pt" --iters 600 | tee "$out/torch.jsonl" |
  $py -c "
import json, sys
for line in sys.stdin:
    j = json.loads(line)
    print(f\"torch jit.load{' graph' if j['graph'] else '      '} batch {j['batch']:2d} {'tf32' if j['tf32'] else 'fp32'}: p50 {j['p50_ms']:.3f} ms  {j['items_per_s']:.0f} img/s  (max |gpu - cpu| {j['max_abs_diff_vs_cpu']:.2g})\")"

section "sequence models on the GPU (RNN and attention kernels): outputs against PyTorch's CPU, time beside torch.jit.load (fp32, TF32 off)"
$py "$root/tests/gpu/torch_gpu_bench.py" make-seq "$work"
for m in lstm_seq encoder_seq; do
  "$J" run "$work/$m.pt" --inputs "$work/${m}_in.pt" --device cuda -o "$work/${m}_cuda.pt" || echo "$m: jitctl run --device cuda failed"
  $py -c "import sys, torch; g = torch.load(sys.argv[1]); w = torch.load(sys.argv[2]); print(f'{sys.argv[3]}: max abs diff from PyTorch (CPU) {float((g - w).abs().max()):.3g}, allclose(rtol=1e-3, atol=1e-4) {torch.allclose(g, w, rtol=1e-3, atol=1e-4)}')" "$work/${m}_cuda.pt" "$work/${m}_out.pt" "$m"
  for g in "" "--no-graphs"; do
    timeout 120 "$J" bench "$work/$m.pt" --inputs "$work/${m}_in.pt" --device cuda $g --warmup 50 --iters 200 --rounds 3 --format json > "$out/json/jitctl_$m$g.json" || echo "jitctl bench failed: $m $g"
    $py -c "import json,sys; j=json.load(open(sys.argv[1])); print(f\"jitctl {sys.argv[2]:12s} {sys.argv[3] or 'graph':11s}: p50 {j['p50_ms']:.3f} ms  ({j['graph']}; host ops: {', '.join(j['host_ops']) or 'none'})\")" "$out/json/jitctl_$m$g.json" "$m" "$g"
  done
  $py "$root/tests/gpu/torch_gpu_bench.py" time-seq "$work/$m.pt" "$work/${m}_in.pt" | tee -a "$out/torch_seq.jsonl"
done

section "where the time goes: ResNet-18 batch 1 fp32, op by op with a sync after each (JITCTL_PROFILE), cuDNN's measurements (JITCTL_CUDA_VERBOSE)"
JITCTL_CUDA_VERBOSE=1 JITCTL_PROFILE=shapes timeout 120 "$J" bench "$work/resnet18_opt.pt" --input-spec 'float32[1,3,224,224]' --device cuda --no-graphs --warmup 5 --iters 100 --rounds 1 > "$out/profile_b1.txt" 2>&1
grep -E "cuDNN conv|engines:|split-K:" "$out/profile_b1.txt" | head -n 60
grep -A 30 "total ms" "$out/profile_b1.txt" | head -n 32

section "beside the CPU: jitctl bench on this machine's cores, batch 1"
"$J" bench "$work/resnet18_opt.pt" --input-spec 'float32[1,3,224,224]' --warmup 3 --iters 30 --rounds 3 2>&1 | tail -n 12
rm -rf "$work"
tar -C "$out" -cf "$out/reports.tar" json && rm -rf "$out/json"
