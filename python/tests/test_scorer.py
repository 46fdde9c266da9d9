"""speedqa.Scorer on pictures in numpy arrays: the values == the speedqa
command's on the same clip, whatever the arrays' strides."""
import numpy as np
import pytest

import speedqa
from conftest import run_cli, share_of_time_beside
from test_score import assert_same_as_cli

CHROMA = {"420": (2, 2), "422": (1, 2), "444": (1, 1)}  # (rows, columns) per chroma sample


def planes_of(clip, path):
    """Every frame of a raw clip as (Y, U, V) arrays."""
    dtype = np.uint8 if clip.bitdepth == 8 else np.dtype("<u2")
    data = np.fromfile(path, dtype=dtype)
    sy, sx = CHROMA[clip.pixel_format]
    w, h = clip.width, clip.height
    cw, ch = (w + sx - 1) // sx, (h + sy - 1) // sy
    sizes = [(h, w), (ch, cw), (ch, cw)]
    frame = sum(a * b for a, b in sizes)
    frames = []
    for i in range(clip.frames):
        at, planes = i * frame, []
        for rows, cols in sizes:
            planes.append(data[at:at + rows * cols].reshape(rows, cols))
            at += rows * cols
        frames.append(planes)
    return frames


def score_planes(clip, refs, diss, **kwargs):
    s = speedqa.Scorer(clip.width, clip.height, pixel_format=clip.pixel_format, bitdepth=clip.bitdepth, **kwargs)
    frames = []
    for r, d in zip(refs, diss):
        frames += s.push(r, d)
    frames += s.flush()
    return {"frames": frames, "pooled_metrics": speedqa.pool(frames)}


@pytest.mark.parametrize("name", ["v1", "v2", "v3", "v4", "v5", "v9"])
def test_numpy_planes_equal_the_command(name, clips, tmp_path):
    c = clips[name]
    cli = run_cli(["-r", str(c.ref), "-d", str(c.dis), *c.cli_geometry(), "--feature", "speed_chroma",
                   "--feature", "speed_temporal"], tmp_path)
    result = score_planes(c, planes_of(c, c.ref), planes_of(c, c.dis), features=["speed_chroma", "speed_temporal"],
                          backend="cpu")
    n = assert_same_as_cli(result, cli)
    print(f"\n[python] {name} through numpy planes: {n} values == the command's")


def test_history_across_batches_equals_the_command(clips, tmp_path):
    """A clip longer than the engine's batches (v1's frames cycled to 40 or
    more): the features that read earlier frames (motion's five-frame
    window, speed_temporal) get them across the batches, from files as the
    command does, and as the Scorer does frame by frame from numpy planes
    (it keeps its own copies of the frames before: no shared code with the
    files' history)."""
    c = clips["v1"]
    reps = -(-40 // c.frames)
    ref, dis = tmp_path / "long_ref.yuv", tmp_path / "long_dis.yuv"
    ref.write_bytes(c.ref.read_bytes() * reps)
    dis.write_bytes(c.dis.read_bytes() * reps)
    # (the files are there: the clip reads them, decompresses nothing)
    long = type(c)({"name": "long", "width": c.width, "height": c.height, "vmaf_pixel_format": c.pixel_format,
                    "bitdepth": c.bitdepth, "frames": c.frames * reps, "ref_xz": None, "dis_xz": None}, tmp_path)
    features = ["motion=motion_five_frame_window=true", "speed_temporal"]
    planes = score_planes(long, planes_of(long, ref), planes_of(long, dis), features=features, model=[], backend="cpu")
    for threads in (1, 2):
        cli = run_cli(["-r", str(ref), "-d", str(dis), *c.cli_geometry(), "--threads", str(threads), "--no_prediction",
                       "--feature", features[0], "--feature", features[1]], tmp_path)
        result = speedqa.score(str(ref), str(dis), **c.geometry, features=features, model=[], threads=threads)
        assert len(result["frames"]) == long.frames
        n = assert_same_as_cli(result, cli)
        assert_same_as_cli(result, planes)
        print(f"\n[python] history across batches, {threads} thread(s): {n} values == the command's and the "
              f"numpy planes'")


def strided(plane, kind):
    """The same samples through a view with other strides."""
    if kind == "padded rows":  # e.g. a decoder's frame with aligned rows
        big = np.zeros((plane.shape[0], plane.shape[1] + 37), plane.dtype)
        big[:, 5:5 + plane.shape[1]] = plane
        return big[:, 5:5 + plane.shape[1]]
    if kind == "every other column":
        big = np.zeros((plane.shape[0], plane.shape[1] * 2), plane.dtype)
        big[:, ::2] = plane
        return big[:, ::2]
    if kind == "rows backwards":
        return np.flipud(np.flipud(plane).copy())
    if kind == "fortran order":
        return np.asfortranarray(plane)
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["padded rows", "every other column", "rows backwards", "fortran order"])
def test_any_strides_give_the_same_values(kind, clips):
    c = clips["v4"]  # 4:2:2 10-bit
    refs, diss = planes_of(c, c.ref), planes_of(c, c.dis)
    views = lambda frames: [[strided(p, kind) for p in f] for f in frames]
    assert not all(v.flags.c_contiguous for v in views(refs)[0])
    plain = score_planes(c, refs, diss)
    assert score_planes(c, views(refs), views(diss)) == plain


def test_motion_holds_a_frame_back_until_the_next(clips):
    c = clips["v1"]
    refs, diss = planes_of(c, c.ref), planes_of(c, c.dis)
    vmaf = speedqa.Scorer(c.width, c.height)  # vmaf_v0.6.1: its motion compares each frame with the next
    assert vmaf.push(refs[0], diss[0]) == []
    assert [f["frameNum"] for f in vmaf.push(refs[1], diss[1])] == [0]
    assert [f["frameNum"] for f in vmaf.flush()] == [1]
    assert "vmaf" in vmaf.metric_names
    chroma = speedqa.Scorer(c.width, c.height, features=["speed_chroma"], model=[])
    out = chroma.push(refs[0], diss[0])
    assert [f["frameNum"] for f in out] == [0]
    assert list(out[0]["metrics"]) == chroma.metric_names == ["speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"]
    assert chroma.flush() == []


def test_push_batch_gives_what_push_gives(clips):
    c = clips["v1"]
    refs, diss = planes_of(c, c.ref), planes_of(c, c.dis)
    one_by_one = score_planes(c, refs, diss, features=["speed_temporal"])
    s = speedqa.Scorer(c.width, c.height, features=["speed_temporal"], backend="cpu", threads=2)
    assert s.preferred_batch >= 1
    frames = s.push_batch(refs[:3], diss[:3]) + s.push_batch([], []) + s.push_batch(refs[3:], diss[3:]) + s.flush()
    assert frames == one_by_one["frames"]
    s2 = speedqa.Scorer(c.width, c.height, features=["speed_temporal"], model=[])
    with pytest.raises(speedqa.Error, match=r"dis\[1\] plane 0: expected shape"):
        s2.push_batch(refs[:2], [diss[0], [diss[1][0][:-1], diss[1][1], diss[1][2]]])
    with pytest.raises(speedqa.Error, match="push_batch: 2 reference and 1 distorted pictures"):
        s2.push_batch(refs[:2], diss[:1])


def test_bad_pictures_raise_speedqa_error(clips):
    c = clips["v2"]  # 1920x1080 4:2:0 10-bit
    y = np.zeros((1080, 1920), np.uint16)
    u = np.zeros((540, 960), np.uint16)
    good = [y, u, u]
    s = speedqa.Scorer(1920, 1080, bitdepth=10, features=["speed_chroma"], model=[])
    cases = [
        ([y.astype(np.uint8), u, u], "ref plane 0: samples must be native uint16 for 10-bit video"),
        ([y, u[:, :-1], u], r"ref plane 1: expected shape \(540, 960\) for 1920x1080 420 10-bit, got \(540, 959\)"),
        ([y, u], "ref: expected 3 planes"),
        ([y.astype(">u2"), u, u], "ref plane 0: samples must be native uint16"),
        ([y.astype(np.float32), u, u], "ref plane 0: samples must be native uint16"),
        ([y, u, [1, 2]], "ref plane 2: expected a 2-D array"),
        (y, "ref: expected a sequence of 3 planes"),
    ]
    for bad, message in cases:
        with pytest.raises(speedqa.Error, match=message):
            s.push(bad, good)
    over = y.copy()
    over[7, 9] = 1024
    with pytest.raises(speedqa.Error, match="dis plane 0: sample 1024 at row 7, column 9 exceeds 1023"):
        s.push(good, [over, u, u])
    assert len(s.push(good, good)) == 1  # still usable after refusals
    s.flush()
    with pytest.raises(speedqa.Error, match="push after flush"):
        s.push(good, good)
    with pytest.raises(speedqa.Error, match="unknown feature"):
        speedqa.Scorer(64, 64, features=["nope"])
    with pytest.raises(speedqa.Error, match="bit depth must be"):
        speedqa.Scorer(64, 64, bitdepth=9)
    with pytest.raises(speedqa.Error, match="video width and height must be positive"):
        speedqa.Scorer(0, 64)
    with pytest.raises(speedqa.Error, match="threads 257: must be from 0 to 256"):  # as the command's --threads
        speedqa.Scorer(64, 64, threads=257)
    with pytest.raises(speedqa.Error, match='unknown backend "gpu"'):
        speedqa.Scorer(64, 64, backend="gpu")
    with pytest.raises(TypeError, match=r"features\[1\] must be a str, not int"):
        speedqa.Scorer(64, 64, features=["adm", 1])


def test_pool_is_the_commands_pooling(clips, tmp_path):
    c = clips["v1"]
    r = speedqa.score(c.ref, c.dis, **c.geometry, features=["speed_chroma"], model=[])
    assert speedqa.pool(r["frames"]) == r["pooled_metrics"]
    with pytest.raises(speedqa.Error, match="pool: frame 1 has other metrics than frame 0"):
        speedqa.pool([r["frames"][0], {"frameNum": 1, "metrics": {**r["frames"][1]["metrics"], "x": 1.0}}])
    with pytest.raises(speedqa.Error, match='pool: frame 0: expected a dict {"frameNum": i, "metrics"'):
        speedqa.pool([r["frames"][0]["metrics"]])
    with pytest.raises(speedqa.Error, match='pool: frame 1: "speed_chroma_v" is not a number'):
        speedqa.pool([r["frames"][0], {"frameNum": 1, "metrics": {**r["frames"][1]["metrics"], "speed_chroma_v": "x"}}])
    # numpy numbers pool as the floats they hold
    as_numpy = [{"frameNum": f["frameNum"], "metrics": {k: np.float64(v) for k, v in f["metrics"].items()}}
                for f in r["frames"]]
    assert speedqa.pool(as_numpy) == r["pooled_metrics"]
    assert speedqa.pool([]) == {}


def test_the_gil_is_released_while_pushing(clips):
    c = clips["v2"]
    ref, dis = planes_of(c, c.ref)[0], planes_of(c, c.dis)[0]
    s = speedqa.Scorer(c.width, c.height, bitdepth=10, backend="cpu", threads=1)
    share = share_of_time_beside(lambda: s.push(ref, dis), repeat=6)
    assert share > 0.1, share
