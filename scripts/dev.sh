#!/usr/bin/env bash
# The two commands of the README, for a fresh Debian 12 machine (as root, or with sudo):
#   scripts/dev.sh demo   install build dependencies, build, run jitctl on a bundled model
#   scripts/dev.sh test   install build + test dependencies (Debian's PyTorch for the live oracle),
#                         build, run the whole suite, then the whole suite again under ASan/UBSan
# Both are idempotent: installed packages are skipped and builds are incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DEPS=(meson ninja-build pkg-config g++ python3 libcli11-dev libzip-dev libfmt-dev libdtl-dev
            libeigen3-dev doctest-dev nlohmann-json3-dev libopenblas-openmp-dev libdnnl-dev libmimalloc-dev)
# The reference PyTorch (1.13) for the oracle tests; the suite itself runs without it (tests skip).
# Graphviz: the test that renders the largest graphs' --format dot output with dot -Tsvg.
TEST_DEPS=(python3-torch python3-torchvision libopenblas0-openmp graphviz)

install() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "installing: ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build() {  # build DIR [meson options...]
  local dir=$1
  shift
  [ -f "$dir/build.ninja" ] || meson setup "$dir" "$@"
  ninja -C "$dir"
}

# Prints the closing line CI reads: "N passed, N failed", summed over the doctest binaries and
# the oracle scripts of the `meson test` runs in the given build directories.
summarize() {
  python3 - "$@" <<'PY'
import re, sys
text = "".join(open(d + "/meson-logs/testlog.txt", errors="replace").read() for d in sys.argv[1:])
passed = failed = skipped = 0
for m in re.finditer(r"\[doctest\] test cases:\s*\d+ \|\s*(\d+) passed \|\s*(\d+) failed \|\s*(\d+) skipped", text):
    passed += int(m[1]); failed += int(m[2]); skipped += int(m[3])
for m in re.finditer(r"^[^\n]*: (\d+) passed, (\d+) failed$", text, re.M):
    passed += int(m[1]); failed += int(m[2])
skipped += len(re.findall(r"^SKIP: ", text, re.M))
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
}

case "${1:-}" in
  demo)
    install "${BUILD_DEPS[@]}"
    build build --buildtype=release
    build/cli/jitctl info testdata/models/resnet_block_traced.pt
    build/cli/jitctl run testdata/models/resnet_block_traced.pt --inputs testdata/models/resnet_block_traced.in0.pt
    ;;
  test)
    install "${BUILD_DEPS[@]}" "${TEST_DEPS[@]}"
    build build --buildtype=release
    status=0
    meson test -C build --print-errorlogs || status=1
    # The whole suite again in a sanitizer build (AddressSanitizer, LeakSanitizer, UBSan): every
    # test binary, the fuzz replays, and the jitctl the corpus and oracle scripts run as a
    # subprocess. -O1 without debug info keeps this build quick; the sanitizers need neither.
    # AddressSanitizer and LeakSanitizer reports go to files (every process inherits these options,
    # so a report from a jitctl that a Python oracle runs is caught too, even where the script would
    # count the failure as one tolerated mismatch); any report fails the run and is printed below.
    # GCC's UBSan runtime ignores log_path beside ASan: its reports go to stderr and abort the
    # process (SIGABRT), which the tests see as a crash.
    # Linked without PIE: the sanitizers' metadata makes this jitctl ~500 MB, and as a PIE every
    # start applies ~8 million relocations (0.2 s of system time per process, half of the suite's
    # time under ASan, which starts jitctl thousands of times).
    build build-asan --buildtype=plain -Doptimization=1 -Dnative=false -Db_sanitize=address,undefined -Db_lundef=false \
      -Dcpp_link_args=-no-pie -Dcuda=disabled
    san_logs=$(mktemp -d)
    ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$san_logs/asan" \
    UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$san_logs/ubsan" \
      meson test -C build-asan --print-errorlogs --timeout-multiplier 3 || status=1
    reports=("$san_logs"/*)
    if [ -e "${reports[0]}" ]; then
      echo "sanitizer reports: ${#reports[@]}"
      for r in "${reports[@]}"; do echo "== $r"; head -n 80 "$r"; done
      status=1
    fi
    rm -rf "$san_logs"
    summarize build build-asan
    exit $status
    ;;
  *)
    echo "usage: scripts/dev.sh demo|test" >&2
    exit 2
    ;;
esac
