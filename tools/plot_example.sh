#!/usr/bin/env bash
# Remakes docs/plot-example.svg, the README's picture, from a real run: the
# sample clip v1 (576x324, 24 frames) encoded by libx264 at four CRFs (an
# encoding ladder), each encode scored by speedqa against the source, the
# four score files drawn by `speedqa plot`. Needs ffmpeg with libx264.
#
#   tools/plot_example.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
speedqa=$(realpath "${1:-build}/speedqa")
out=$PWD/docs/plot-example.svg
shared=${SPEEDQA_SHARED_TESTDATA:-../shared/testdata}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

xz -dc "$shared/v1_ref.yuv.xz" >"$work/ref.yuv"
geometry=(-w 576 -h 324 -p 420 -b 8)
for crf in 24 32 40 48; do
  ffmpeg -loglevel error -f rawvideo -pix_fmt yuv420p -s 576x324 -r 24 -i "$work/ref.yuv" \
    -c:v libx264 -preset medium -crf "$crf" "$work/crf$crf.mp4"
  ffmpeg -loglevel error -i "$work/crf$crf.mp4" -f rawvideo -pix_fmt yuv420p "$work/crf$crf.yuv"
  "$speedqa" -r "$work/ref.yuv" -d "$work/crf$crf.yuv" "${geometry[@]}" --feature cambi \
    --feature speed_chroma --feature speed_temporal -q --json -o "$work/crf$crf.json"
done
# from the folder, so that the picture names the files without it
(cd "$work" && "$speedqa" plot crf24.json crf32.json crf40.json crf48.json --label "CRF 24" --label "CRF 32" --label "CRF 40" --label "CRF 48" \
  --metric vmaf --metric cambi --metric speed_chroma_uv --metric speed_temporal \
  --title "speedqa plot: a clip encoded by libx264 at four CRFs (576x324, 24 frames)" -o "$out")
echo "$out: $(wc -c <"$out") bytes"
