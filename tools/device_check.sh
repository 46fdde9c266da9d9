#!/usr/bin/env bash
# The one GPU-machine run: every host and device test, CPU/CUDA parity over
# the test data in all three covariance orders (the gtest suite and the
# `speedqa --parity` command), compute-sanitizer memcheck and racecheck on one
# clip per feature, the benchmark table and CLI end-to-end timings.
#
#   tools/prepare_device.sh            # here: deps, test data, binaries
#   device run: tools/device_check.sh "$OUT"   with carry: .deps .device
#
# Uses the binaries in .device/bin when present (built by prepare_device.sh),
# else builds. Logs go to the folder given (default $OUT); summary.txt last.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-device-logs}}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
t0=$(date +%s)

note "== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$summary"
note "$(nproc) CPU cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

if [ -x .device/bin/speedqa ]; then
  bin=.device/bin
  note "== using prebuilt binaries from .device/bin"
else
  note "== building"
  cmake -S . -B build-device -G Ninja -DSPEEDQA_CUDA=ON -DCMAKE_BUILD_TYPE=Release >"$out/build.log" 2>&1 &&
    ninja -C build-device >>"$out/build.log" 2>&1 || { note "BUILD FAILED (see build.log)"; exit 1; }
  bin=.device/bin
  mkdir -p $bin
  cp build-device/speedqa build-device/tests/speedqa_tests build-device/tests/speedqa_cuda_tests \
     build-device/src/features/speed/speedqa_speed_tests build-device/bench/speedqa_bench $bin/
  cp build-device/tests/speedqa_io_tests $bin/ 2>/dev/null || true
fi
# the repository's subset of the test data (../shared does not travel)
export SPEEDQA_REPO_TESTDATA=$PWD/testdata
export SPEEDQA_SHARED_TESTDATA=${SPEEDQA_SHARED_TESTDATA:-$PWD/testdata}

sections=${SECTIONS:-tests,parity,sanitizer,bench,stages,cli}
# same_frames A B LABEL: notes whether two JSON score files hold identical frames
same_frames() {
  if cmp -s <(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['frames'])" "$1") \
            <(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['frames'])" "$2"); then
    note "  $3: JSON frames identical"
  else
    note "  $3: JSON frames DIFFER"
  fi
}
want() { [[ ",$sections," == *",$1,"* ]]; }

if want tests; then
note "== tests (host and device)"
{
  $bin/speedqa_tests --gtest_filter=-GoldenRuns.*:Layering.*
  $bin/speedqa_speed_tests
  [ -x $bin/speedqa_io_tests ] && $bin/speedqa_io_tests
  $bin/speedqa_cuda_tests
} >"$out/tests.log" 2>&1
grep -E '^\[(golden|parity|fp-contract|cov-order|cov-sums|equivalence|arith|kernels|cli|hybrid)\]|PASSED|FAILED|SKIPPED' "$out/tests.log" | tee -a "$summary"
fi

clips=/tmp/speedqa-clips
mkdir -p $clips
if want parity || want sanitizer; then
note "== parity command (speedqa --parity) over the test clips, all three orders"
python3 - "$SPEEDQA_SHARED_TESTDATA" >"$clips/list.txt" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1] + '/clips.json'))['clips']:
    print(c['name'], c['width'], c['height'], c['vmaf_pixel_format'], c['bitdepth'])
PY
parity_fail=0
: >"$out/parity.log"
while read -r name w h p b; do
  for s in ref dis; do [ -f $clips/${name}_$s.yuv ] || xz -dkc "$SPEEDQA_SHARED_TESTDATA/${name}_$s.yuv.xz" >$clips/${name}_$s.yuv; done
  for order in scalar avx2 avx512; do
    echo "-- $name $order" >>"$out/parity.log"
    $bin/speedqa --parity -q -r $clips/${name}_ref.yuv -d $clips/${name}_dis.yuv -w $w -h $h -p $p -b $b \
      --dispatch $order --no_prediction --feature speed_chroma --feature speed_temporal \
      --feature speed_chroma=speed_kernelscale=1.0:speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45.0 \
      --feature speed_temporal=speed_use_ref_diff=true >>"$out/parity.log" 2>&1 || parity_fail=$((parity_fail + 1))
  done
done <"$clips/list.txt"
note "$(grep -c '^parity:' "$out/parity.log") parity runs, $parity_fail failed; values: $(awk '/^parity:/{v+=$8; i+=$11} END{print v" compared, "i" identical"}' "$out/parity.log")"
fi

if want sanitizer; then
note "== compute-sanitizer (memcheck, racecheck) on v7, one run per feature"
: >"$out/sanitizer.log"
for tool in memcheck racecheck; do
  for feat in speed_chroma speed_temporal; do
    echo "-- $tool $feat" >>"$out/sanitizer.log"
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $bin/speedqa --backend cuda -q -r $clips/v7_ref.yuv -d $clips/v7_dis.yuv \
      -w 320 -h 240 -p 420 -b 8 --no_prediction --feature $feat --batch 4 >>"$out/sanitizer.log" 2>&1
    note "$tool $feat: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1))"
  done
done

fi
if want probe; then
note "== device probe (start-up, pinning, bandwidth)"
$bin/speedqa_device_probe 2>&1 | tee -a "$summary"
fi

if want cli4k; then
note "== CLI 4K, 400 frames, wall per run (SPEEDQA_TIMING phases)"
$bin/speedqa_bench --make-clip /tmp/r4k.yuv 3840x2160 400 1 & $bin/speedqa_bench --make-clip /tmp/d4k.yuv 3840x2160 400 2 & wait
cat /tmp/r4k.yuv /tmp/d4k.yuv >/dev/null
for feat in speed_chroma speed_temporal; do
  for be in cuda auto; do
    staging=huge
    s0=$(date +%s.%N)
    SPEEDQA_STAGING=$staging SPEEDQA_TIMING=1 $bin/speedqa --backend $be -r /tmp/r4k.yuv -d /tmp/d4k.yuv -w 3840 -h 2160 -p 420 -b 8 \
      --no_prediction --feature $feat --json -o /tmp/t_$be.json >"$out/cli4k_${feat}_$be.log" 2>&1
    rc=$?
    s1=$(date +%s.%N)
    note "-- $feat backend $be: exit $rc, wall $(awk -v a=$s0 -v b=$s1 'BEGIN{printf "%.1f ms = %.3f ms/frame", (b-a)*1000, (b-a)*1000/400}')"
    cat "$out/cli4k_${feat}_$be.log" | tee -a "$summary"
  done
  same_frames /tmp/t_cuda.json /tmp/t_auto.json "$feat: cuda and auto"
done
fi

if want clilong; then
note "== CLI on a long 4K clip (1000 frames, raw 420 8-bit in page cache): cpu 16 threads, cuda, auto"
$bin/speedqa_bench --make-clip /tmp/rl.yuv 3840x2160 1000 1 & $bin/speedqa_bench --make-clip /tmp/dl.yuv 3840x2160 1000 2 & wait
cat /tmp/rl.yuv /tmp/dl.yuv >/dev/null
for feat in speed_chroma speed_temporal; do
  for backend in cpu:16 cuda auto; do
    be=${backend%%:*} th=${backend#*:}
    thread_arg=""; [ "$th" != "$backend" ] && thread_arg="--threads $th"
    s0=$(date +%s.%N)
    SPEEDQA_TIMING=1 $bin/speedqa --backend $be $thread_arg -r /tmp/rl.yuv -d /tmp/dl.yuv -w 3840 -h 2160 -p 420 -b 8 \
      --no_prediction --feature $feat --json -o /tmp/long_$be.json >"$out/clilong_${feat}_$be.log" 2>&1
    rc=$?
    s1=$(date +%s.%N)
    note "$(printf '%-15s %-5s exit %d  wall %s' $feat $be $rc "$(awk -v a=$s0 -v b=$s1 'BEGIN{printf "%.1f ms = %.3f ms/frame all in", (b-a)*1000, (b-a)*1000/1000}')")"
    grep -E '^auto:|score all|create engine' "$out/clilong_${feat}_$be.log" | sed 's/^/    /' | tee -a "$summary"
  done
  for be in cuda auto; do same_frames /tmp/long_cpu.json /tmp/long_$be.json "$feat: cpu and $be"; done
done
rm -f /tmp/rl.yuv /tmp/dl.yuv
fi

if want bench; then
note "== benchmark table"
$bin/speedqa_bench --repeats 5 ${BENCH_ARGS:-} >"$out/bench.log" 2>&1
cat "$out/bench.log" | tee -a "$summary"
fi

if want stages; then
$bin/speedqa_device_probe 2>&1 | grep -E 'h2d' | tee -a "$summary"
note "== CUDA stage times (SPEEDQA_CUDA_STAGES=1, graphs off, one lane), 4K, 48 frames"
for feat in speed_chroma speed_temporal; do
  note "-- $feat"
  SPEEDQA_CUDA_STAGES=1 $bin/speedqa_bench --sizes 3840x2160 --features $feat --engines cuda --repeats 1 --mpx 400 2>&1 |
    grep -E 'cuda-stages|\| cuda' | tee -a "$summary"
done
fi

if want cli; then
note "== CLI end to end (raw 420 8-bit files in page cache): all in = wall of the whole run / frames"
: >"$out/cli_timing.log"
ms() { awk -v a=$1 -v b=$2 'BEGIN{printf "%.1f", (b - a) * 1000}'; }
for sz in 576x324:3000 1920x1080:1200 3840x2160:400; do
  size=${sz%%:*} n=${sz##*:} w=${size%x*} h=${size#*x}
  $bin/speedqa_bench --make-clip /tmp/r_$size.yuv $size $n 1 & $bin/speedqa_bench --make-clip /tmp/d_$size.yuv $size $n 2 & wait
  cat /tmp/r_$size.yuv /tmp/d_$size.yuv >/dev/null
  for feat in speed_chroma speed_temporal; do
    for backend in cpu:2 cpu:16 cuda auto; do
      be=${backend%%:*} th=${backend#*:}
      [ "$th" = "$backend" ] && th=default
      thread_arg=""; [ $th != default ] && thread_arg="--threads $th"
      args="--backend $be $thread_arg -q -r /tmp/r_$size.yuv -d /tmp/d_$size.yuv -w $w -h $h -p 420 -b 8 --no_prediction --feature $feat --json"
      s0=$(date +%s.%N); $bin/speedqa $args --frame_cnt 1 -o /tmp/one.json >>"$out/cli_timing.log" 2>&1; s1=$(date +%s.%N)
      $bin/speedqa $args -o /tmp/out_$be.json >>"$out/cli_timing.log" 2>&1
      rc=$?
      s2=$(date +%s.%N)
      note "$(printf '%-10s %-15s %-5s threads %-7s %5d frames  1-frame run %7s ms  all in %8s ms/frame (wall %s ms)  exit %d' $size $feat $be $th $n \
        $(ms $s0 $s1) $(awk -v b=$s1 -v c=$s2 -v n=$n 'BEGIN{printf "%.3f", (c - b) * 1000 / n}') $(ms $s1 $s2) $rc)"
    done
    if [ $size = 3840x2160 ]; then
      for be in cuda auto; do
        SPEEDQA_TIMING=1 $bin/speedqa --backend $be -r /tmp/r_$size.yuv -d /tmp/d_$size.yuv \
          -w $w -h $h -p 420 -b 8 --no_prediction --feature $feat --json -o /tmp/t.json 2>&1 | sed "s/^/  [$be] /" | tee -a "$summary"
      done
    fi
    for be in cuda auto; do same_frames /tmp/out_cpu.json /tmp/out_$be.json "$size $feat: cpu and $be"; done
  done
  rm -f /tmp/r_$size.yuv /tmp/d_$size.yuv
done
fi
note "== done in $(( $(date +%s) - t0 )) s"
