#!/usr/bin/env bash
# The one GPU-machine run: the device tests (FP contract, every models/golden
# run on the GPU, CPU/GPU parity as features x dispatches), the `--parity`
# command over every clip with the models and features in all three
# dispatches, compute-sanitizer memcheck and racecheck on one clip per
# feature, the fixed cost of a CUDA run, and the models' benchmark table.
#
#   tools/prepare_device.sh            # here: binaries and test data into .device/
#   device run: tools/device_check.sh "$OUT"   with carry: .device
#
# SECTIONS (default tests,parity,sanitizer,cost,bench) picks sections;
# BENCH_SIZES goes to tools/bench_device.sh. Logs go to the folder given
# (default $OUT); summary.txt has the short account, printed as it goes.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-device-logs}}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
want() { [[ ",${SECTIONS:-tests,parity,sanitizer,cost,bench}," == *",$1,"* ]]; }
t_start=$(date +%s)
stage_t=$t_start
stage() {  # times the section just ended
  local now; now=$(date +%s)
  note "   ($1: $((now - stage_t)) s)"
  stage_t=$now
}

note "== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$summary"
note "$(nproc) CPU cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

bin=.device/bin
[ -x $bin/speedqa ] || [ ! -f .device/bin.tar.xz ] || tar -C .device -xJf .device/bin.tar.xz
[ -x $bin/speedqa ] || { note "no .device/bin/speedqa: run tools/prepare_device.sh first"; exit 1; }
# the binaries name the checkout they were built in (test data, models):
# make that path this one
built_in=$(strings $bin/speedqa | grep -m1 -o '/[^ "]*/models$' | sed 's|/models$||')
if [ -n "$built_in" ] && [ "$built_in" != "$PWD" ] && [ ! -e "$built_in" ]; then
  mkdir -p "$(dirname "$built_in")" && ln -s "$PWD" "$built_in"
fi
td=$PWD/.device/testdata
[ -f "$td/clips.json" ] || tar -C "$td" -xJf "$td/json.tar.xz"
export SPEEDQA_SHARED_TESTDATA=$td
export SPEEDQA_REPO_TESTDATA=$PWD/testdata
clips=/tmp/speedqa-clips
mkdir -p $clips
python3 - "$td" >"$clips/list.txt" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1] + '/clips.json'))['clips']:
    print(c['name'], c['width'], c['height'], c['vmaf_pixel_format'], c['bitdepth'])
PY
while read -r name w h p b; do
  for s in ref dis; do [ -f $clips/${name}_$s.yuv ] || xz -dkc "$td/${name}_$s.yuv.xz" >$clips/${name}_$s.yuv; done
done <"$clips/list.txt"

if want tests; then
  note "== device tests"
  for t in $bin/*cuda_tests; do
    $t >"$out/$(basename $t).log" 2>&1
    note "$(basename $t) exit $?"
    grep -E '^\[[a-z-]+\]|PASSED|FAILED|SKIPPED|Failure' "$out/$(basename $t).log" | head -120 | tee -a "$summary"
  done
  $bin/speedqa_tests --gtest_filter='InputPlan.*:HybridEngine*:Layering.*' >"$out/host_tests.log" 2>&1
  note "speedqa_tests (input plan, hybrid, layering) exit $?"
  stage tests
fi

if want parity; then
  note "== speedqa --parity over every clip: models and features, three dispatches"
  : >"$out/parity.log"
  fails=0 runs=0
  while read -r name w h p b; do
    for d in scalar avx2 avx512; do
      for what in "--model version=vmaf_v0.6.1" "--model version=vmaf_v1.0.16_3d0h" \
                  "--model version=vmaf_v1.0.16_hfr_3d0h_2160" \
                  "--no_prediction --feature adm=adm_csf_mode=1 --feature vif=debug=true --feature motion=motion_five_frame_window=true --feature cambi=full_ref=true" \
                  "--no_prediction --feature speed_chroma --feature speed_temporal=speed_use_ref_diff=true"; do
        echo "-- $name $d $what" >>"$out/parity.log"
        runs=$((runs + 1))
        $bin/speedqa --parity -q -r $clips/${name}_ref.yuv -d $clips/${name}_dis.yuv -w $w -h $h -p $p -b $b \
          --dispatch $d --batch 4 $what >>"$out/parity.log" 2>&1 || fails=$((fails + 1))
      done
    done
  done <"$clips/list.txt"
  note "$runs parity runs, $fails did not exit 0 (libvmaf refuses some: cambi on v6, the 2160 model's prescale on v7)"
  # --gpus 2: the clip split in two ranges over the GPUs there are (in turn
  # on one), the file == the CPU engine's
  split_same=0 split_runs=0
  while read -r name w h p b; do
    [ "$name" = v6 ] || [ "$name" = v7 ] && continue
    io="-r $clips/${name}_ref.yuv -d $clips/${name}_dis.yuv -w $w -h $h -p $p -b $b -q --model version=vmaf_v1.0.16_3d0h --json --precision max"
    $bin/speedqa $io --backend cpu -o /tmp/split_cpu.json >>"$out/parity.log" 2>&1
    for be in cuda auto; do
      split_runs=$((split_runs + 1))
      $bin/speedqa $io --backend $be --gpus 2 -o /tmp/split_$be.json >>"$out/parity.log" 2>&1 &&
        cmp -s <(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['frames'])" /tmp/split_cpu.json) \
               <(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['frames'])" /tmp/split_$be.json) &&
        split_same=$((split_same + 1))
    done
  done <"$clips/list.txt"
  note "--gpus 2 (cuda, auto) with vmaf_v1.0.16_3d0h: $split_same of $split_runs runs gave the CPU engine's frames"
  note "$(awk '/^parity:/{v+=$8; i+=$11} END{print v" values compared, "i" identical"}' "$out/parity.log")"
  grep -E '^parity: .* [1-9][0-9]* differ|parity: frame' "$out/parity.log" | head -20 | tee -a "$summary"
  stage parity
fi

if want sanitizer; then
  note "== compute-sanitizer memcheck and racecheck, one run per feature (v7, v1 for cambi)"
  : >"$out/sanitizer.log"
  for tool in memcheck racecheck; do
    for feat in adm vif motion=motion_five_frame_window=true cambi=full_ref=true speed_chroma speed_temporal; do
      c=v7; [ "${feat%%=*}" = cambi ] && c=v1
      read -r _ w h p b < <(grep "^$c " "$clips/list.txt")
      echo "-- $tool $feat" >>"$out/sanitizer.log"
      timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $bin/speedqa --backend cuda -q -r $clips/${c}_ref.yuv \
        -d $clips/${c}_dis.yuv -w $w -h $h -p $p -b $b --no_prediction --feature $feat --frame_cnt 6 --batch 3 \
        --json -o /tmp/san.json >>"$out/sanitizer.log" 2>&1
      note "$tool $feat: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1))"
    done
  done
  stage sanitizer
fi

if want cost; then
  note "== the fixed cost of a CUDA run (1 frame of v2, 1080p), SPEEDQA_TIMING=1"
  for be in cuda cpu; do
    s0=$(date +%s.%N)
    SPEEDQA_TIMING=1 $bin/speedqa --backend $be -r $clips/v2_ref.yuv -d $clips/v2_dis.yuv -w 1920 -h 1080 -p 420 -b 10 \
      --model version=vmaf_v1.0.16_3d0h --frame_cnt 1 --json -o /tmp/cost.json >"$out/cost_$be.log" 2>&1
    s1=$(date +%s.%N)
    note "$be: exit $?, wall $(awk -v a=$s0 -v b=$s1 'BEGIN{printf "%.0f ms", (b-a)*1000}')"
    grep -E '^\[timing\]' "$out/cost_$be.log" | tee -a "$summary"
  done
  $bin/speedqa_device_probe >"$out/probe.log" 2>&1 && tail -20 "$out/probe.log" | tee -a "$summary"
  stage cost
fi

if want engine; then
  note "== the engine alone on generated video (speedqa_bench): each feature at its model options, and the models"
  all_features="vmaf_v1.0.16_3d0h,vmaf_v0.6.1,adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_min_val=0.5:adm_noise_weight=0.02:adm_norm_view_dist=3:adm_ref_display_height=1080,vif,motion=motion_max_val=18,cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17,speed_chroma=speed_kernelscale=1.0:speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45.0"
  $bin/speedqa_bench --sizes ${ENGINE_SIZES:-1920x1080,3840x2160} --repeats 3 --engines ${ENGINE_ENGINES:-cpu:$(nproc),cuda,cuda-pinned} \
    --features "${ENGINE_FEATURES:-$all_features}" >"$out/engine.log" 2>&1
  grep -E '^\||speedqa_bench' "$out/engine.log" | tee -a "$summary"
  note "-- stage times of the models at 4K (SPEEDQA_CUDA_STAGES=1, one queue, no graphs: for shares only)"
  for model in vmaf_v1.0.16_3d0h vmaf_v0.6.1; do
    $bin/speedqa_bench --make-clip /tmp/st_r.yuv 3840x2160 48 1 && $bin/speedqa_bench --make-clip /tmp/st_d.yuv 3840x2160 48 2
    SPEEDQA_CUDA_STAGES=1 $bin/speedqa --backend cuda -r /tmp/st_r.yuv -d /tmp/st_d.yuv -w 3840 -h 2160 -p 420 -b 8 \
      --model version=$model --json -o /tmp/st.json >"$out/stages_$model.log" 2>&1
    note "$model:"; grep -v '^$' "$out/stages_$model.log" | tail -30 | tee -a "$summary"
  done
  stage engine
fi

if want bench; then
  note "== the models end to end (tools/bench_device.sh)"
  tools/bench_device.sh $bin "$out" "${BENCH_SIZES:-1920x1080:1000,3840x2160:1000}" >>"$out/bench.log" 2>&1
  cat "$out/bench_device.md" | tee -a "$summary"
  stage bench
fi
note "== done in $(( $(date +%s) - t_start )) s"
