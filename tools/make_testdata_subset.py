#!/usr/bin/env python3
"""Rebuilds testdata/ (the subset of ../shared/testdata that ships with the
repository, so that a fresh clone, or the GPU machine, which gets only the
checkout, still checks exactness): each clip truncated to its first frames,
its speed golden files with their `frames` truncated to the same frames
(so that a test can require as many frames as the golden file has).

    tools/make_testdata_subset.py [../shared/testdata]
"""
import hashlib
import json
import lzma
import os
import shutil
import subprocess
import sys

# frames kept per clip: v2 is the 1080p 10-bit clip (two frames, so that
# speed_temporal has a frame to compare)
KEEP = {"v1": 8, "v2": 2, "v3": 8, "v4": 2, "v5": 2, "v6": 6, "v7": 6, "v8": 6, "v9": 2}


def frame_bytes(c):
    w, h, bd, pf = c["width"], c["height"], c["bitdepth"], c["vmaf_pixel_format"]
    bps = 2 if bd > 8 else 1
    cw = w if pf == "444" else (w + 1) // 2
    ch = h if pf != "420" else (h + 1) // 2
    return (w * h + 2 * cw * ch) * bps


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "shared", "testdata")
    dst = os.path.join(os.path.dirname(__file__), "..", "testdata")
    clips = json.load(open(os.path.join(src, "clips.json")))
    out_clips = []
    for c in clips["clips"]:
        n = KEEP.get(c["name"])
        if not n:
            continue
        fb = frame_bytes(c)
        c = dict(c)
        for side in ("ref", "dis"):
            raw = lzma.open(os.path.join(src, c[side + "_xz"])).read(fb * n)
            path = os.path.join(dst, c[side + "_xz"])
            with open(path, "wb") as f:
                f.write(subprocess.run(["xz", "-T2", "-6", "-c"], input=raw, capture_output=True, check=True).stdout)
            c[side + "_sha256"] = hashlib.sha256(raw).hexdigest()
            c[side + "_xz_bytes"] = os.path.getsize(path)
        c["frames"] = n
        c["bytes_per_file"] = fb * n
        c["note"] = "first %d frames of the shared clip %s" % (n, c["name"])
        out_clips.append(c)
    subset = {k: v for k, v in clips.items() if k != "clips"}
    subset["set"] = "repository subset"
    subset["note"] = ("A subset of ../shared/testdata (the visible set) shipped so that a fresh clone still checks "
                      "exactness: clips truncated to their first frames, their golden files' frames truncated alike "
                      "(tools/make_testdata_subset.py).")
    subset["clips"] = out_clips
    json.dump(subset, open(os.path.join(dst, "clips.json"), "w"), indent=1)
    shutil.copy(os.path.join(src, "optionsets.json"), os.path.join(dst, "optionsets.json"))
    gdst = os.path.join(dst, "golden")
    os.makedirs(gdst, exist_ok=True)
    for name in sorted(os.listdir(os.path.join(src, "golden"))):
        clip = name.split("__")[0]
        if name.endswith(".json") and "__" in name and clip in KEEP:
            g = json.load(open(os.path.join(src, "golden", name)))
            g["frames"] = g["frames"][: KEEP[clip]]
            if "stock_cli_frames" in g:
                g["stock_cli_frames"] = g["stock_cli_frames"][: KEEP[clip]]
            json.dump(g, open(os.path.join(gdst, name), "w"), indent=1)
    shutil.copy(os.path.join(src, "golden", "README.md"), os.path.join(gdst, "README.md"))


if __name__ == "__main__":
    main()
