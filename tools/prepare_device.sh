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
  cmake -S . -B build-device -G Ninja -DSPEEDQA_CUDA=ON -DSPEEDQA_LIBAV=OFF -DSPEEDQA_CAIRO=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90-real}" "${launcher[@]}" >/dev/null
  # every device test program (the engine's and the features' own)
  device_tests=$(ninja -C build-device -t targets all | grep -o '^speedqa_[a-z0-9_]*cuda_tests' | sort -u)
  ninja -C build-device speedqa_cli speedqa_tests speedqa_bench speedqa_device_probe $device_tests
  rm -rf .device/bin && mkdir -p .device/bin
  cp build-device/speedqa build-device/tests/speedqa_tests build-device/bench/speedqa_bench \
     build-device/bench/speedqa_device_probe .device/bin/
  for t in $device_tests; do cp "$(find build-device -name "$t" -type f -perm -u+x | head -1)" .device/bin/; done
  strip .device/bin/* 2>/dev/null || true
fi
# the test data the device runs read (not the covariance sums): the clips
# as they are, the manifests and golden files packed with xz
rm -rf .device/testdata && mkdir -p .device/testdata
cp "$shared"/*.yuv.xz .device/testdata/
tar -C "$shared" -cJf .device/testdata/json.tar.xz clips.json optionsets.json golden models --exclude='*.md'
du -sh .deps .device .device/*
