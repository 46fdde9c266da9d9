#!/usr/bin/env bash
# Gets a checkout ready for the GPU machine, which receives the repository
# only (at most 64 MiB) and has no package registry: builds the binaries
# here (CUDA for the GPU's architecture only: CUDA_ARCHS, default 90-real,
# the H200) into .device/bin, and packs what the device tests read of the
# shared test data (the clips, the SpEED and the models' golden files) into
# .device/testdata. The folder is git-ignored: name it in the device
# call's `carry`, with .deps (the third-party headers the build needs there
# if it builds there instead). tools/device_check.sh unpacks and runs it all.
#   tools/prepare_device.sh [--no-build]
# BUILD_DIR (default build-device) names the build folder; an existing one
# with CUDA on (and libav and cairo, which are opened only when used) does.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SPEEDQA_SHARED_TESTDATA:-../shared/testdata}
mkdir -p .deps/include .deps/lib .device
cp -r /usr/include/CLI /usr/include/nlohmann /usr/include/lzma.h /usr/include/lzma .deps/include/
cp /usr/lib/x86_64-linux-gnu/liblzma.a .deps/lib/
rm -rf .deps/googletest && cp -r /usr/src/googletest .deps/googletest
if [ "${1:-}" != "--no-build" ]; then
  export CCACHE_BASEDIR=$PWD/..
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  b=${BUILD_DIR:-build-device}
  [ -f "$b/CMakeCache.txt" ] || cmake -S . -B "$b" -G Ninja -DSPEEDQA_CUDA=ON -DSPEEDQA_LIBAV=OFF -DSPEEDQA_CAIRO=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90-real}" "${launcher[@]}" >/dev/null
  # every device test program (the engine's and the features' own)
  device_tests=$(ninja -C "$b" -t targets all | grep -o '^speedqa_[a-z0-9_]*cuda_tests' | sort -u)
  ninja -C "$b" speedqa_cli speedqa_tests speedqa_bench speedqa_device_probe $device_tests
  rm -rf .device/bin && mkdir -p .device/bin
  cp "$b/speedqa" "$b/tests/speedqa_tests" "$b/bench/speedqa_bench" "$b/bench/speedqa_device_probe" .device/bin/
  for t in $device_tests; do cp "$(find "$b" -name "$t" -type f -perm -u+x | head -1)" .device/bin/; done
  strip .device/bin/* 2>/dev/null || true
  # packed: the call carries at most 64 MiB with the checkout
  tar -C .device -cJf .device/bin.tar.xz bin && rm -rf .device/bin
fi
# the test data the device runs read (not the covariance sums): the clips
# as they are, the manifests and golden files packed with xz
rm -rf .device/testdata && mkdir -p .device/testdata
cp "$shared"/*.yuv.xz .device/testdata/
tar -C "$shared" --exclude='*.md' -cJf .device/testdata/json.tar.xz clips.json optionsets.json golden models
du -sh .deps .device .device/*
