#!/usr/bin/env bash
# The VMAF models end to end on a GPU machine, side by side in one run:
#   speedqa --backend cuda, --backend auto, --backend cpu (every core),
#   libvmaf's vmaf on the CPU (every core) and, where given, libvmaf's own
#   CUDA build (vmaf_v0.6.1: its CUDA extractors are ADM, VIF and motion),
# wall time of the whole process over the frames, on the same raw 8-bit
# 4:2:0 files in page cache, and whether each one's values equal speedqa's
# CPU engine's (every per-frame and pooled value of the JSON, ==).
#
#   SPEEDQA_VMAF_BIN=... SPEEDQA_VMAF_CUDA_BIN=... tools/bench_device.sh BIN_DIR OUT_DIR [sizes]
#
# BIN_DIR holds speedqa; sizes default to 1920x1080:1000,3840x2160:1000. The
# GPU runs (cuda, auto) are the best of two, the CPU ones (minutes at 4K) one
# run each. The
# clips are the 1080p test clip v2 (real content) at 8 bits, 2x nearest for
# 4K, its 6 frames shifted by a few pixels a cycle so that every frame
# moves (SPEEDQA_SHARED_TESTDATA or ./testdata holds v2_*.yuv.xz). The vmaf
# commands are built by hand outside the repository (their %.6f JSON
# values printed with %.17g so that they round-trip); this script does not
# build them. Writes OUT_DIR/bench_device.md and the logs.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: bench_device.sh BIN_DIR OUT_DIR [sizes]}
out=${2:?usage: bench_device.sh BIN_DIR OUT_DIR [sizes]}
sizes=${3:-1920x1080:1000,3840x2160:1000}
mkdir -p "$out"
speedqa=$bin/speedqa
vmaf=${SPEEDQA_VMAF_BIN:-}
vmaf_cuda=${SPEEDQA_VMAF_CUDA_BIN:-}
testdata=${SPEEDQA_SHARED_TESTDATA:-testdata}
work=${TMPDIR:-/tmp}/speedqa-bench-device
mkdir -p "$work"
cores=$(nproc)
table=$out/bench_device.md

# make_clip SIDE W H N: $work/SIDE_WxH.yuv
make_clip() {
  python3 - "$testdata/v2_$1.yuv.xz" "$work/$1_$2x$3.yuv" "$2" "$3" "$4" <<'PY'
import lzma, sys
import numpy as np
src, dst, w, h, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
raw = np.frombuffer(lzma.open(src).read(), dtype="<u2")
sw, sh = 1920, 1080
fb = sw * sh * 3 // 2
frames = []
for f in range(len(raw) // fb):
    v = raw[f * fb:(f + 1) * fb]
    y = (v[:sw * sh].reshape(sh, sw) >> 2).astype(np.uint8)
    u = (v[sw * sh:sw * sh * 5 // 4].reshape(sh // 2, sw // 2) >> 2).astype(np.uint8)
    vv = (v[sw * sh * 5 // 4:].reshape(sh // 2, sw // 2) >> 2).astype(np.uint8)
    k = w // sw
    if k > 1:
        y, u, vv = (np.repeat(np.repeat(p, k, 0), k, 1) for p in (y, u, vv))
    frames.append((y, u, vv))
variants = []
for shift in range(4):
    for y, u, vv in frames:
        s = 3 * shift
        variants.append(b"".join(np.ascontiguousarray(np.roll(p, s // (2 if i else 1), axis=1)).tobytes()
                                 for i, p in enumerate((y, u, vv))))
with open(dst, "wb") as o:
    for i in range(n):
        o.write(variants[i % len(variants)])
PY
}

# ms per frame of one run (wall), or "failed"
run_ms() {
  local n=$1 log=$2 t0 t1
  shift 2
  t0=$(date +%s.%N)
  "$@" >"$log" 2>&1 || { echo failed; return; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN{printf "%.3f", (b-a)*1000/n}'
}

# the best of two runs
best_ms() {
  local a b
  a=$(run_ms "$@")
  b=$(run_ms "$@")
  [ "$a" = failed ] || [ "$b" = failed ] && { echo failed; return; }
  awk -v a="$a" -v b="$b" 'BEGIN{print (a<b)?a:b}'
}

same_values() {
  python3 - "$1" "$2" <<'PY'
import json, sys
try:
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
except Exception as e:
    print("unreadable"); sys.exit()
fa, fb = a["frames"], b["frames"]
n = sum(len(x["metrics"]) for x in fa)
same = sum(1 for x, y in zip(fa, fb) for k in x["metrics"] if y["metrics"].get(k) == x["metrics"][k])
pooled = a.get("pooled_metrics") == b.get("pooled_metrics")
print(f"equal ({n})" if same == n and len(fa) == len(fb) and pooled else f"{same} of {n} equal")
PY
}

{
echo "| size | model | engine | frames | ms/frame | vs speedqa cuda | values vs speedqa cpu |"
echo "|---|---|---|---|---|---|---|"
} >"$table"
for sz in ${sizes//,/ }; do
  size=${sz%%:*} n=${sz##*:} w=${size%x*} h=${size#*x}
  for side in ref dis; do [ -s "$work/${side}_$size.yuv" ] || make_clip "$side" "$w" "$h" "$n"; done
  cat "$work/ref_$size.yuv" "$work/dis_$size.yuv" >/dev/null
  io="-r $work/ref_$size.yuv -d $work/dis_$size.yuv -w $w -h $h -p 420 -b 8 --json -q"
  for model in vmaf_v1.0.16_3d0h vmaf_v0.6.1; do
    o=$work/$size.$model
    cpu=$(run_ms "$n" "$out/cpu_$size.$model.log" $speedqa $io --model version=$model --backend cpu --threads "$cores" --precision max -o "$o.cpu.json")
    cuda=$(best_ms "$n" "$out/cuda_$size.$model.log" $speedqa $io --model version=$model --backend cuda --precision max -o "$o.cuda.json")
    auto=$(best_ms "$n" "$out/auto_$size.$model.log" $speedqa $io --model version=$model --backend auto --precision max -o "$o.auto.json")
    rows=("speedqa cuda|$cuda|$o.cuda.json" "speedqa auto|$auto|$o.auto.json" "speedqa cpu ($cores threads)|$cpu|$o.cpu.json")
    if [ -n "$vmaf" ]; then
      v=$(run_ms "$n" "$out/vmaf_$size.$model.log" "$vmaf" $io --model version=$model --threads "$cores" -o "$o.vmaf.json")
      rows+=("vmaf cpu ($cores threads)|$v|$o.vmaf.json")
    fi
    if [ -n "$vmaf_cuda" ] && [ "$model" = vmaf_v0.6.1 ]; then
      v=$(run_ms "$n" "$out/vmafcuda_$size.$model.log" "$vmaf_cuda" $io --model version=$model --threads "$cores" -o "$o.vmafcuda.json")
      rows+=("vmaf cuda|$v|$o.vmafcuda.json")
    fi
    for r in "${rows[@]}"; do
      IFS='|' read -r name ms file <<<"$r"
      ratio=$(awk -v a="$ms" -v b="$cuda" 'BEGIN{if (a+0 > 0 && b+0 > 0) printf "%.1fx", a/b; else print "-"}')
      echo "| $size | $model | $name | $n | $ms | $ratio | $(same_values "$o.cpu.json" "$file") |" >>"$table"
    done
  done
done
cat "$table"
