#!/usr/bin/env bash
# Packs a CUDA-enabled build for a GPU machine that cannot build jitctl itself (no libzip-dev,
# dtl, ...): jitctl, the CUDA plugin and the GPU tests, stripped, with every library they link
# except the C/C++ runtime and CUDA's own (the GPU machine has newer ones), as one .tar.xz.
#   tests/gpu/pack_build.sh BUILD OUT.tar.xz      (then: tar xJf OUT.tar.xz -C DIR; DIR/bin is the BINDIR
#                                                  of tests/gpu/run_gpu_checks.sh)
# A device call carries the tracked tree and this pack together, at most 64 MiB; the tree alone was
# 60 MiB by 2026-11. The GPU checks read neither testdata/kernels_nn nor testdata/passes, so take
# them out of the index for the call (`git rm -r -q --cached testdata/kernels_nn testdata/passes`,
# both listed in .git/info/exclude) and put them back after (`git reset -q testdata/kernels_nn
# testdata/passes`, the two lines out of the exclude file).
set -euo pipefail
build=$1
dest=$(realpath -m "$2")
tmp=$(mktemp -d)
mkdir -p "$tmp/bin/lib"
cp "$build/cli/jitctl" "$build/kernels/cuda/libjitctl_cuda.so" "$build/tests/cuda_tests" "$tmp/bin/"
strip "$tmp"/bin/jitctl "$tmp"/bin/libjitctl_cuda.so "$tmp"/bin/cuda_tests
for f in "$tmp"/bin/jitctl "$tmp"/bin/libjitctl_cuda.so "$tmp"/bin/cuda_tests; do
  ldd "$f" | awk '/=> \//{print $3}'
done | sort -u | grep -vE '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*|libdl|libpthread|librt|libcuda|libcudart|libcublas|libcublasLt|libcudnn[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$tmp/bin/lib/"; done
tar -C "$tmp" -cf - bin | xz -T0 -9 > "$dest"
rm -rf "$tmp"
ls -la "$dest"
