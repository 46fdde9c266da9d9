"""speedqa.score() on files: every value == the speedqa command's JSON (at
--precision max, round-trip exact), on every clip in testdata/."""
import math
import shutil
import subprocess

import pytest

import speedqa
from conftest import run_cli, share_of_time_beside

CLIPS = ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"]


def same(a, b):
    """Equal values; the command's JSON prints inf and nan as null."""
    if b is None:
        return not math.isfinite(a)
    return a == b


def assert_same_as_cli(result, cli):
    assert [f["frameNum"] for f in result["frames"]] == [f["frameNum"] for f in cli["frames"]]
    compared = 0
    for ours, theirs in zip(result["frames"], cli["frames"]):
        assert list(ours["metrics"]) == list(theirs["metrics"]), "metric names and their order"
        for name, value in theirs["metrics"].items():
            assert same(ours["metrics"][name], value), (ours["frameNum"], name, ours["metrics"][name], value)
            compared += 1
    assert list(result["pooled_metrics"]) == list(cli["pooled_metrics"])
    for name, pooled in cli["pooled_metrics"].items():
        assert list(result["pooled_metrics"][name]) == list(pooled)
        for method, value in pooled.items():
            assert same(result["pooled_metrics"][name][method], value), (name, method)
            compared += 1
    assert compared > 0
    return compared


def cli_error(proc):
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("speedqa: error: "), proc.stderr
    return line[len("speedqa: error: "):]


@pytest.mark.parametrize("name", CLIPS)
def test_vmaf_and_speed_features_equal_the_command(name, clips, tmp_path):
    """The default model (vmaf_v0.6.1) with SpEED-QA beside it, each clip."""
    c = clips[name]
    features = ["speed_chroma", "speed_temporal"]
    cli = run_cli(["-r", str(c.ref), "-d", str(c.dis), *c.cli_geometry(), "--feature", features[0], "--feature",
                   features[1]], tmp_path)
    result = speedqa.score(str(c.ref), str(c.dis), **c.geometry, features=features, backend="cpu")
    n = assert_same_as_cli(result, cli)
    assert len(result["frames"]) == c.frames
    assert "vmaf" in result["pooled_metrics"]
    print(f"\n[python] {name}: {n} values == the command's")


def test_options_models_and_threads_equal_the_command(clips, tmp_path):
    c = clips["v1"]
    models = ["version=vmaf_v0.6.1:name=a", "version=vmaf_v0.6.1neg:name=b"]
    features = ["speed_chroma=speed_max_val=45:speed_nn_floor=0.1", "cambi", "motion=motion_force_zero=true"]
    args = ["-r", str(c.ref), "-d", str(c.dis), *c.cli_geometry(), "--threads", "2"]
    for m in models:
        args += ["--model", m]
    for f in features:
        args += ["--feature", f]
    cli = run_cli(args, tmp_path)
    result = speedqa.score(c.ref, c.dis, **c.geometry, features=features, model=models, threads=2)
    assert_same_as_cli(result, cli)
    assert {"a", "b", "speed_chroma_uv_mxv_45_nnf_0.1", "cambi"} <= set(result["pooled_metrics"])


def test_features_only(clips, tmp_path):
    c = clips["v3"]
    cli = run_cli(["-r", str(c.ref), "-d", str(c.dis), *c.cli_geometry(), "--no_prediction",
                   "--feature", "speed_chroma"], tmp_path)
    for model in ([], ""):
        result = speedqa.score(c.ref, c.dis, **c.geometry, features="speed_chroma", model=model)
        assert_same_as_cli(result, cli)
        assert list(result["pooled_metrics"]) == ["speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"]


def y4m_of(clip, path):
    """The raw clip as y4m (the reader takes the geometry from the header)."""
    tags = {"420": "C420jpeg", "422": "C422", "444": "C444"}[clip.pixel_format]
    if clip.bitdepth > 8:
        tags = tags.replace("jpeg", "") + f"p{clip.bitdepth}"
    raw = clip.dis.read_bytes() if path.name.startswith("dis") else clip.ref.read_bytes()
    frame = len(raw) // clip.frames
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{clip.width} H{clip.height} F25:1 Ip A1:1 {tags}\n".encode())
        for i in range(clip.frames):
            f.write(b"FRAME\n" + raw[i * frame:(i + 1) * frame])
    return path


@pytest.mark.parametrize("name", ["v1", "v4"])
def test_y4m_gives_what_raw_gives(name, clips, tmp_path):
    c = clips[name]
    ref, dis = y4m_of(c, tmp_path / "ref.y4m"), y4m_of(c, tmp_path / "dis.y4m")
    from_y4m = speedqa.score(ref, dis, features=["speed_temporal"])
    from_raw = speedqa.score(c.ref, c.dis, **c.geometry, features=["speed_temporal"])
    assert from_y4m == from_raw
    assert len(from_y4m["frames"]) == c.frames


def test_encoded_video_gives_what_the_command_gives(clips, tmp_path):
    """Encoded files (where the build reads them through libav; else the
    command's refusal, word for word)."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        pytest.fail("the test of encoded input needs the ffmpeg command (tools/setup.sh --tests)")
    c = clips["v1"]
    encodes = []
    for path, crf in ((c.ref, 0), (c.dis, 40)):
        out = tmp_path / f"{path.stem}.mkv"
        subprocess.run([ffmpeg, "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", f"{c.width}x{c.height}",
                        "-i", str(path), "-c:v", "libx264", "-crf", str(crf), str(out)], check=True)
        encodes.append(out)
    args = ["-r", str(encodes[0]), "-d", str(encodes[1]), "--feature", "speed_temporal"]
    cli = run_cli(args, tmp_path, check=False)
    if isinstance(cli, subprocess.CompletedProcess):  # a build without libav
        with pytest.raises(speedqa.Error) as e:
            speedqa.score(*encodes, features="speed_temporal")
        assert str(e.value) == cli_error(cli)
        return
    result = speedqa.score(*encodes, features="speed_temporal")
    assert len(result["frames"]) == c.frames
    n = assert_same_as_cli(result, cli)
    print(f"\n[python] encoded (x264 in Matroska): {n} values == the command's")


def test_a_shorter_file_scores_the_frames_both_have_with_a_warning(clips, tmp_path):
    c = clips["v1"]
    short = tmp_path / "short.yuv"
    short.write_bytes(c.dis.read_bytes()[: 3 * 576 * 324 * 3 // 2])
    with pytest.warns(UserWarning, match=f'"{short}" ended before "{c.ref}"; scoring the 3 frames they share'):
        r = speedqa.score(c.ref, short, **c.geometry, features="speed_chroma", model=[])
    assert [f["frameNum"] for f in r["frames"]] == [0, 1, 2]
    full = speedqa.score(c.ref, c.dis, **c.geometry, features="speed_chroma", model=[])
    assert r["frames"] == full["frames"][:3]


def test_errors_carry_the_librarys_message(clips, tmp_path):
    c = clips["v1"]
    assert issubclass(speedqa.Error, ValueError)
    missing = tmp_path / "missing.yuv"
    with pytest.raises(speedqa.Error, match="missing.yuv: cannot open: No such file or directory"):
        speedqa.score(missing, c.dis, **c.geometry)
    with pytest.raises(speedqa.Error, match='unknown feature "nope"'):
        speedqa.score(c.ref, c.dis, **c.geometry, features=["nope"])
    with pytest.raises(speedqa.Error, match="pixel_format \"411\""):
        speedqa.score(c.ref, c.dis, width=576, height=324, pixel_format="411")
    with pytest.raises(speedqa.Error, match="needs width and height"):
        speedqa.score(c.ref, c.dis, width=576)
    with pytest.raises(speedqa.Error, match="not a y4m file"):
        speedqa.score(c.ref, c.dis)
    with pytest.raises(speedqa.Error, match="nothing to compute"):
        speedqa.score(c.ref, c.dis, **c.geometry, model=[])
    with pytest.raises(speedqa.Error, match="bit depth"):
        speedqa.score(c.ref, c.dis, width=576, height=324, bitdepth=9)
    with pytest.raises(TypeError):
        speedqa.score(b"/bytes/path", c.dis, **c.geometry)
    with pytest.raises(TypeError, match="features must be a str or a list of str, not int"):
        speedqa.score(c.ref, c.dis, **c.geometry, features=3)
    # the command says the same
    proc = run_cli(["-r", str(missing), "-d", str(c.dis), *c.cli_geometry()], tmp_path, check=False)
    with pytest.raises(speedqa.Error) as e:
        speedqa.score(missing, c.dis, **c.geometry)
    assert str(e.value) == cli_error(proc)


def test_the_gil_is_released_while_scoring(clips):
    c = clips["v2"]
    share = share_of_time_beside(lambda: speedqa.score(c.ref, c.dis, **c.geometry, backend="cpu", threads=1))
    assert share > 0.1, share
