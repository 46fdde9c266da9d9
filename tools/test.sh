#!/usr/bin/env bash
# Builds speedqa and runs the whole test suite:
#  1. the release build (with the CUDA engine when nvcc is present; its
#     device tests say they skipped when there is no GPU) and every test,
#     the Python module's pytest among them;
#  2. an AddressSanitizer + UBSan build of the CPU engine and the same tests,
#     which checks among others the case where libvmaf overflows a buffer
#     (speed_temporal with speed_prescale > 1). It looks for memory errors and
#     leaves the full comparison of values to the release build (TESTING.md).
# At the end: each skipped test with the reason it gave, and each stage's
# time (tools/stages.sh).
#
# CUDA_ARCHS (default: the shipped set, CMakeLists.txt) narrows the CUDA
# engine's architectures in the release build, as tools/prepare_device.sh
# takes it; .ci/run sets it on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/stages.sh
own_stages=1
stages_begin && own_stages=0
trap 'stages_end $own_stages' EXIT
jobs=$(nproc)
echo "speedqa: building and running every test twice (release, then AddressSanitizer): this takes a few minutes"
echo "(about 16 on 2 cores without CUDA, longer with it)"

# ctest on BUILD_DIR, its output kept for the list of skipped tests
run_tests() {
  local dir=$1
  shift
  env "$@" ctest --test-dir "$dir" --output-on-failure --test-output-size-passed 65536 -j "$jobs" | tee "$dir/ctest.out"
}

# Each test ctest reports as skipped, with the reason its skip gave
# (GoogleTest's "file:line: Skipped" and the message lines after it).
list_skipped() {
  local dir=$1
  awk '
    FNR == NR { if (match($0, /^[ \t]*[0-9]+ - .* \(Skipped\)$/)) {
                  sub(/^[ \t]*[0-9]+ - /, ""); sub(/ \(Skipped\)$/, ""); skipped[$0] = 1 }
                next }
    /^\[ RUN      \] / { name = $4; reason = ""; in_skip = 0; next }
    /: Skipped$/ { in_skip = 1; next }
    /^\[  SKIPPED \] / { if (in_skip) reasons[name] = reason; in_skip = 0; next }
    in_skip && NF { reason = reason (reason == "" ? "" : " ") $0 }
    END { for (t in skipped) printf "  %s: %s\n", t, (t in reasons && reasons[t] != "") ? reasons[t] : "(no reason given)" }
  ' "$dir/ctest.out" "$dir/Testing/Temporary/LastTest.log" | sort
}

# the Python module and its pytest run in the release build; pytest runs with
# Debian's python3, for which tools/setup.sh --tests installs pytest, numpy
# and pybind11 (PATH may put another python first)
python=$(command -v /usr/bin/python3 || command -v python3)
cuda_archs=()
if [ -n "${CUDA_ARCHS:-}" ]; then
  cuda_archs=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS")
  echo "speedqa: the CUDA engine compiled for $CUDA_ARCHS only (CUDA_ARCHS)"
fi
build_release() {
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPEEDQA_BUILD_TESTS=ON -DSPEEDQA_BUILD_BENCH=ON \
    -DSPEEDQA_CUDA=AUTO "${cuda_archs[@]}" -DSPEEDQA_PYTHON=ON -DPython_EXECUTABLE="$python"
  cmake --build build -j "$jobs"
}
build_asan() {
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPEEDQA_ASAN=ON -DSPEEDQA_CUDA=OFF \
    -DSPEEDQA_BUILD_TESTS=ON -DSPEEDQA_BUILD_BENCH=OFF -DPython_EXECUTABLE="$python"
  cmake --build build-asan -j "$jobs"
}

stage "release build" build_release
stage "release tests" run_tests build
# what the exactness tests compared (ctest keeps passing tests' output in its log)
grep -h -E '^\[(golden|equivalence|cov-order|kernels|arith|cli|decode|parity|fp-contract|hybrid|simd-objects|install|python)\]' build/Testing/Temporary/LastTest.log || true
stage "asan build" build_asan
# the comparisons with ../shared's golden files skip here, saying so: the
# release build made them (tests/support/run_feature.hpp)
stage "asan tests" run_tests build-asan ASAN_OPTIONS=detect_leaks=1
echo "speedqa: all tests passed (release and AddressSanitizer builds)"
for dir in build build-asan; do
  echo "Skipped in $dir: $(list_skipped "$dir" | wc -l)"
  list_skipped "$dir"
done
