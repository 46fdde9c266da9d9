#!/usr/bin/env bash
# Side by side with Netflix's vmaf: each feature at the options a model gives
# it, and whole models, ms per frame on the same raw files in page cache, for
#   speedqa            --backend cpu (our kernels, SIMD where the CPU has it)
#   speedqa reference  --backend cpu-reference (our C reference kernels; SpEED's
#                      straightforward full-frame path)
#   vmaf               libvmaf master's command, built by hand outside the repository
# all with the same --threads. Prints a markdown table with the ratios.
# speedqa and vmaf run in turns (ROUNDS rounds, default 5, best of each), so
# that the load of a shared machine moves both sides of a ratio alike.
#
#   SPEEDQA_VMAF_BIN=/path/to/vmaf tools/bench_models.sh [build-dir] [threads] [sizes]
#
# The clips: the 1080p test clip v2 (real content, 10-bit) as 8-bit 4:2:0, and
# the same scaled to 4K (ffmpeg), its 6 frames cycled to FRAMES frames.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
threads=${2:-2}
sizes=${3:-1920x1080:48,3840x2160:24}
vmaf=${SPEEDQA_VMAF_BIN:-}
speedqa=$build/speedqa
work=${TMPDIR:-/tmp}/speedqa-bench-models
mkdir -p "$work"
shared=${SPEEDQA_SHARED_TESTDATA:-../shared/testdata}
command -v ffmpeg >/dev/null || { echo "needs ffmpeg (apt-get install ffmpeg)"; exit 1; }
[ -x "$speedqa" ] || { echo "no $speedqa: build first"; exit 1; }
[ -n "$vmaf" ] && [ ! -x "$vmaf" ] && { echo "SPEEDQA_VMAF_BIN=$vmaf is not executable"; exit 1; }

# clip SIDE WxH FRAMES -> $work/SIDE_WxH.yuv
clip() {
  local side=$1 size=$2 n=$3 out=$work/$1_$2.yuv
  local w=${2%x*} h=${2#*x}
  # kept from an earlier run only when it has the frames asked for
  [ -s "$out" ] && [ "$(stat -c %s "$out")" -eq $((w * h * 3 / 2 * n)) ] && return
  local src=$work/v2_$side.yuv
  [ -s "$src" ] || xz -dkc "$shared/v2_$side.yuv.xz" >"$src"
  ffmpeg -loglevel error -y -stream_loop -1 -f rawvideo -s 1920x1080 -pix_fmt yuv420p10le -i "$src" \
    -frames:v "$n" -vf "scale=${size/x/:}:flags=bicubic,format=yuv420p" -f rawvideo "$out"
}

# The files as a reader that has just read them from storage leaves them in
# the page cache: written back, dropped from the cache, and read once. How
# a file got into the cache decides its folios there (on Linux 6.18 with
# ext4, a file read in is held in 2 MiB folios, a file just written in small
# writes, as ffmpeg writes these clips, in 4 KiB pages), and a mapping of it
# takes a folio at a time: speedqa maps its inputs, vmaf reads them. Done
# once per size, before any timed run; both commands then read the same
# cached files.
from_storage() {
  python3 - "$@" <<'PY'
import os, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
PY
  cat "$@" >/dev/null
}

# the smaller of BEST and one run's ms per frame (N frames) of a command,
# or "failed": min_run_ms N BEST command...
min_run_ms() {
  local n=$1 best=$2 t0 t1
  shift 2
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo failed; return; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v n="$n" -v c="$best" 'BEGIN{m=(b-a)*1000/n; print (m<c)?m:c}'
}

# ms per frame of a command's wall time, best of 3
time_ms() {
  local n=$1 best=1e99
  shift
  for _ in 1 2 3; do
    best=$(min_run_ms "$n" "$best" "$@")
    [ "$best" = failed ] && { echo failed; return; }
  done
  printf '%.2f' "$best"
}

# ms per frame of two commands' wall times, best of ROUNDS each, the two
# run one after the other in every round (which goes first alternates), so
# that a change in the machine's load reaches both: prints "A B", or
# "failed" when either fails. The commands are given as two arrays' names.
ROUNDS=${ROUNDS:-5}
time_pair_ms() {
  local n=$1 r name
  local -A best=([$2]=1e99 [$3]=1e99)
  for ((r = 0; r < ROUNDS; r++)); do
    local order=("$2" "$3")
    ((r % 2)) && order=("$3" "$2")
    for name in "${order[@]}"; do
      local -n cmd=$name
      best[$name]=$(min_run_ms "$n" "${best[$name]}" "${cmd[@]}")
      [ "${best[$name]}" = failed ] && { echo failed; return; }
    done
  done
  printf '%.2f %.2f' "${best[$2]}" "${best[$3]}"
}

cases=(
  "adm|--no_prediction --feature adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_min_val=0.5:adm_noise_weight=0.02:adm_norm_view_dist=3:adm_ref_display_height=1080"
  "vif|--no_prediction --feature vif"
  "motion|--no_prediction --feature motion=motion_max_val=18"
  "cambi|--no_prediction --feature cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17"
  "speed_chroma|--no_prediction --feature speed_chroma=speed_kernelscale=1.0:speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45.0"
  "vmaf_v0.6.1|--model version=vmaf_v0.6.1"
  "vmaf_v1.0.16_3d0h|--model version=vmaf_v1.0.16_3d0h"
)

# "equal (N)": every per-frame value of the two JSON files, N of them, and
# every pooled one, parsed as numbers, compared with ==
same_values() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
fa, fb = a["frames"], b["frames"]
ok = len(fa) == len(fb) and all(x["metrics"] == y["metrics"] for x, y in zip(fa, fb)) \
    and a.get("pooled_metrics") == b.get("pooled_metrics")
print(f"equal ({sum(len(x['metrics']) for x in fa)})" if ok else "DIFFER")
PY
}

echo "| size | what | speedqa ms/frame | speedqa reference ms/frame | vmaf ms/frame | vmaf / speedqa | values |"
echo "|---|---|---|---|---|---|---|"
for sz in ${sizes//,/ }; do
  size=${sz%%:*} n=${sz##*:} w=${size%x*} h=${size#*x}
  clip ref "$size" "$n"
  clip dis "$size" "$n"
  from_storage "$work/ref_$size.yuv" "$work/dis_$size.yuv"
  io="-r $work/ref_$size.yuv -d $work/dis_$size.yuv -w $w -h $h -p 420 -b 8 --threads $threads --precision max -q"
  for c in "${cases[@]}"; do
    name=${c%%|*} args=${c#*|}
    # the reference path of SpEED is slow: a quarter of the frames
    ours_cmd=($speedqa $io $args --json -o "$work/out.json")
    nref=$(( n / 4 > 4 ? n / 4 : 4 ))
    ref=$(time_ms "$nref" $speedqa $io --frame_cnt "$nref" --backend cpu-reference $args --json -o "$work/ref.json")
    theirs=-
    ratio=-
    values=-
    if [ -n "$vmaf" ]; then
      theirs_cmd=("$vmaf" $io $args --json -o "$work/vmaf.json")
      read -r ours theirs <<<"$(time_pair_ms "$n" ours_cmd theirs_cmd)"
      ratio=$(awk -v a="$theirs" -v b="$ours" 'BEGIN{printf "%.1fx", a/b}')
      values=$(same_values "$work/out.json" "$work/vmaf.json")
    else
      ours=$(time_ms "$n" "${ours_cmd[@]}")
    fi
    echo "| $size | $name | $ours | $ref | $theirs | $ratio | $values |"
  done
done
