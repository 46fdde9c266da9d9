#!/usr/bin/env bash
# Gets a checkout ready for the GPU machine, which receives the repository
# only and has no package registry: copies the third-party headers and
# sources the build needs into .deps/ and (unless --no-build) builds the
# binaries here into .device/bin so that the device run spends no time
# compiling (without libav and cairo: the GPU machine has no FFmpeg libraries, and
# cairo there is not known). The device tests use the repository's test-data subset.
# Both folders are git-ignored; name them in the device call's `carry`.
# CUDA_ARCHS (default: the shipped set, sm_75 to sm_90) narrows the build
# for quick iterations, e.g. CUDA_ARCHS=90-real.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/include .deps/lib .device
cp -r /usr/include/CLI /usr/include/nlohmann /usr/include/lzma.h /usr/include/lzma .deps/include/
cp /usr/lib/x86_64-linux-gnu/liblzma.a .deps/lib/
rm -rf .deps/googletest && cp -r /usr/src/googletest .deps/googletest
if [ "${1:-}" != "--no-build" ]; then
  archs=()
  [ -n "${CUDA_ARCHS:-}" ] && archs=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS")
  cmake -S . -B build-device -G Ninja -DSPEEDQA_CUDA=ON -DSPEEDQA_LIBAV=OFF -DSPEEDQA_CAIRO=OFF -DCMAKE_BUILD_TYPE=Release "${archs[@]}" >/dev/null
  ninja -C build-device speedqa_cli speedqa_tests speedqa_speed_tests speedqa_io_tests speedqa_cuda_tests speedqa_bench \
    speedqa_device_probe
  rm -rf .device/bin .device/testdata && mkdir -p .device/bin
  cp build-device/speedqa build-device/tests/speedqa_tests build-device/tests/speedqa_cuda_tests \
     build-device/src/features/speed/speedqa_speed_tests build-device/bench/speedqa_bench \
     build-device/bench/speedqa_device_probe .device/bin/
  cp build-device/tests/speedqa_io_tests .device/bin/ 2>/dev/null || true
  strip .device/bin/* 2>/dev/null || true
fi
du -sh .deps .device
