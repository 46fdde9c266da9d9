#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan + UBSan, in build-fuzz)
# and runs each for FUZZ_SECONDS (default 60), as many side by side as there
# are cores, from its seed corpus
# (fuzz/corpus/<target>/, plus the shipped models for the model reader).
# Any finding (a crash, a sanitizer report, a leak, a timeout, running out of
# memory) fails the script; the input that caused it is kept in
# build-fuzz/findings/<target>/ and the report's end is printed.
# At the end, with tools/test.sh's stages when .ci/run runs both: the build's
# and the run's time (tools/stages.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/stages.sh
own_stages=1
stages_begin && own_stages=0
trap 'stages_end $own_stages' EXIT
seconds=${FUZZ_SECONDS:-60}
jobs=$(nproc)
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPEEDQA_FUZZ=ON \
  -DSPEEDQA_CUDA=OFF -DSPEEDQA_BUILD_TESTS=OFF -DSPEEDQA_BUILD_BENCH=OFF >/dev/null
# the decoder's target exists only in builds with libav
targets=$(cmake --build build-fuzz --target help | sed -n 's/^\(fuzz_[a-z0-9_]*\):.*/\1/p' | sort)
stage "fuzz build" cmake --build build-fuzz --target $targets -j "$jobs"
# one target: its verdict in build-fuzz/<target>.verdict (0: no finding)
fuzz_one() {
  local t=$1 corpus=build-fuzz/corpus/$1 findings=build-fuzz/findings/$1
  mkdir -p "$corpus" "$findings"
  local seeds=(fuzz/corpus/$t)
  [ "$t" = fuzz_model ] && seeds+=(models)
  # (new inputs go to build-fuzz/corpus, not to the repository's seeds)
  local rc=0
  build-fuzz/fuzz/$t -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" >"build-fuzz/$t.log" 2>&1 || rc=$?
  echo "$rc" >"build-fuzz/$t.verdict"
}
# the targets run side by side, one per core (each is one process on one
# core): each still fuzzes its full time
fuzz_all() {
  local running=0 t
  for t in $targets; do
    rm -f "build-fuzz/$t.verdict"
    if [ "$running" -ge "$jobs" ]; then
      wait -n || true
      running=$((running - 1))
    fi
    fuzz_one "$t" &
    running=$((running + 1))
  done
  wait
}
stage "fuzz run ($seconds s a target)" fuzz_all
failed=""
for t in $targets; do
  findings=build-fuzz/findings/$t
  if [ "$(cat "build-fuzz/$t.verdict" 2>/dev/null)" = 0 ]; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build-fuzz/$t.log")
    cov=$(grep -o 'cov: [0-9]*' "build-fuzz/$t.log" | tail -1)
    echo "fuzz: $t: no finding in ${seconds} s, $runs runs, $cov, corpus $(ls "build-fuzz/corpus/$t" | wc -l) inputs"
  else
    echo "fuzz: $t: FINDING (build-fuzz/$t.log, input in $findings/):"
    { grep -v -E '^#[0-9]+|^INFO:' "build-fuzz/$t.log" || true; } | tail -40
    failed="$failed $t"
  fi
done
if [ -n "$failed" ]; then
  echo "fuzz: findings in:$failed" >&2
  exit 1
fi
echo "fuzz: all targets ran ${seconds} s each without a finding"
