#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan + UBSan, in build-fuzz)
# and runs each for FUZZ_SECONDS (default 60) from its seed corpus
# (fuzz/corpus/<target>/, plus the shipped models for the model reader).
# Any finding (a crash, a sanitizer report, a leak, a timeout, running out of
# memory) fails the script; the input that caused it is kept in
# build-fuzz/findings/<target>/ and the report's end is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
jobs=$(nproc)
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPEEDQA_FUZZ=ON \
  -DSPEEDQA_CUDA=OFF -DSPEEDQA_BUILD_TESTS=OFF -DSPEEDQA_BUILD_BENCH=OFF >/dev/null
# the decoder's target exists only in builds with libav
targets=$(cmake --build build-fuzz --target help | sed -n 's/^\(fuzz_[a-z0-9_]*\):.*/\1/p' | sort)
cmake --build build-fuzz --target $targets -j "$jobs"
failed=""
for t in $targets; do
  corpus=build-fuzz/corpus/$t findings=build-fuzz/findings/$t
  mkdir -p "$corpus" "$findings"
  seeds=(fuzz/corpus/$t)
  [ "$t" = fuzz_model ] && seeds+=(models)
  # (new inputs go to build-fuzz/corpus, not to the repository's seeds)
  if build-fuzz/fuzz/$t -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" >"build-fuzz/$t.log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build-fuzz/$t.log")
    cov=$(grep -o 'cov: [0-9]*' "build-fuzz/$t.log" | tail -1)
    echo "fuzz: $t: no finding in ${seconds} s, $runs runs, $cov, corpus $(ls "$corpus" | wc -l) inputs"
  else
    echo "fuzz: $t: FINDING (build-fuzz/$t.log, input in $findings/):"
    grep -v -E '^#[0-9]+|^INFO:' "build-fuzz/$t.log" | tail -40
    failed="$failed $t"
  fi
done
if [ -n "$failed" ]; then
  echo "fuzz: findings in:$failed" >&2
  exit 1
fi
echo "fuzz: all targets ran ${seconds} s each without a finding"
