#!/usr/bin/env bash
# Builds speedqa and runs the whole test suite:
#  1. the release build (with the CUDA engine when nvcc is present; its
#     device tests say they skipped when there is no GPU) and every test,
#     the Python module's pytest among them;
#  2. an AddressSanitizer + UBSan build of the CPU engine and the same tests,
#     which checks among others the case where libvmaf overflows a buffer
#     (speed_temporal with speed_prescale > 1).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# the Python module and its pytest run in the release build; pytest runs
# with Debian's python3, for which apt installs pytest, numpy and pybind11
# (PATH may put another python first)
python=$(command -v /usr/bin/python3 || command -v python3)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPEEDQA_PYTHON=ON -DPython_EXECUTABLE="$python"
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"
# what the exactness tests compared (ctest keeps passing tests' output in its log)
grep -h -E '^\[(golden|equivalence|cov-order|kernels|arith|cli|parity|fp-contract|hybrid|simd-objects|python)\]' build/Testing/Temporary/LastTest.log || true
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPEEDQA_ASAN=ON -DSPEEDQA_CUDA=OFF \
  -DSPEEDQA_BUILD_BENCH=OFF -DPython_EXECUTABLE="$python"
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j "$jobs"
echo "speedqa: all tests passed (release and AddressSanitizer builds)"
