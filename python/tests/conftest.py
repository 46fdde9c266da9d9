"""Shared fixtures: the clips in testdata/ decompressed once, and the speedqa
command that the module's values are compared with."""
import json
import lzma
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"


def cli_path():
    """The speedqa command: $SPEEDQA_CLI (ctest sets it), else build/speedqa, else PATH."""
    for candidate in (os.environ.get("SPEEDQA_CLI"), ROOT / "build" / "speedqa", shutil.which("speedqa")):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    pytest.fail("no speedqa command: build it (cmake --build build) or set SPEEDQA_CLI")


class Clip:
    """A clip of `source`/clips.json, decompressed into `folder`."""
    def __init__(self, info, folder, source=TESTDATA):
        self.name = info["name"]
        self.width = info["width"]
        self.height = info["height"]
        self.pixel_format = info["vmaf_pixel_format"]
        self.bitdepth = info["bitdepth"]
        self.frames = info["frames"]
        self.ref = folder / f"{self.name}_ref.yuv"
        self.dis = folder / f"{self.name}_dis.yuv"
        for path, xz in ((self.ref, info["ref_xz"]), (self.dis, info["dis_xz"])):
            if not path.exists():
                path.write_bytes(lzma.decompress((source / xz).read_bytes()))

    @property
    def geometry(self):
        return dict(width=self.width, height=self.height, pixel_format=self.pixel_format, bitdepth=self.bitdepth)

    def cli_geometry(self):
        return ["-w", str(self.width), "-h", str(self.height), "-p", self.pixel_format, "-b", str(self.bitdepth)]


def clips_of(source, folder):
    manifest = json.loads((source / "clips.json").read_text())
    return {c["name"]: Clip(c, folder, source) for c in manifest["clips"]}


@pytest.fixture(scope="session")
def clips(tmp_path_factory):
    """The repository's clips (their first frames)."""
    return clips_of(TESTDATA, tmp_path_factory.mktemp("clips"))


def shared_testdata():
    """The shared test data (../shared/testdata beside the checkout, or
    $SPEEDQA_SHARED_TESTDATA): required under CI, else the test is skipped."""
    folder = Path(os.environ.get("SPEEDQA_SHARED_TESTDATA") or ROOT.parent / "shared" / "testdata")
    if not (folder / "clips.json").is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"shared test data missing under CI: {folder}")
        pytest.skip(f"no shared test data at {folder} (set SPEEDQA_SHARED_TESTDATA)")
    return folder


@pytest.fixture(scope="session")
def shared_clips(tmp_path_factory):
    """The shared test data's clips, whole, as its golden files need them."""
    return clips_of(shared_testdata(), tmp_path_factory.mktemp("shared_clips"))


def run_cli(args, out_dir, name="scores.json", check=True):
    """Runs `speedqa ARGS --json --precision max -o FILE` and returns the parsed
    JSON (every value round-trip exact), or the CompletedProcess when it fails."""
    out = Path(out_dir) / name
    p = subprocess.run([cli_path(), *args, "--json", "--precision", "max", "-q", "-o", str(out)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        if check:
            pytest.fail(f"speedqa {' '.join(args)} failed: {p.stderr}")
        return p
    return json.loads(out.read_text())


def share_of_time_beside(work, repeat=3):
    """How much of its usual pace a Python loop keeps while another thread runs
    `work` (repeatedly): near 1 when the work releases the GIL, near 0 when it
    holds it (the loop then only runs in the moments between calls)."""
    def spin(seconds):
        n, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            n += 1
        return n

    pace = spin(0.2) / 0.2
    finished = threading.Event()

    def worker():
        for _ in range(repeat):
            work()
        finished.set()

    t = threading.Thread(target=worker)
    start = time.perf_counter()
    t.start()
    n = 0
    while not finished.is_set():
        n += 1
        time.perf_counter()
    elapsed = time.perf_counter() - start
    t.join()
    return n / (pace * elapsed)
