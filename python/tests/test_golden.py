"""speedqa.score() and speedqa.Scorer against libvmaf's own values (golden
files written by Netflix libvmaf master at %.17g): every value ==, through
files and through numpy planes, independently of the speedqa command."""
import json

import pytest

import speedqa
from conftest import TESTDATA, shared_testdata
from test_score import same
from test_scorer import planes_of, score_planes

CLIPS = ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"]
DISPATCHES = ["scalar", "avx2", "avx512"]


def agreed_golden(paths):
    """The golden run, where libvmaf's dispatches (scalar, AVX2, AVX-512) all
    give the same values, so that whichever this machine runs must match;
    None where they differ (those runs are checked per dispatch by the C++
    golden tests)."""
    runs = [json.loads(p.read_text()) for p in paths]
    if any(r["exit_status"] != 0 or "reference_defect" in r for r in runs):
        return None
    if any(r["frames"] != runs[0]["frames"] or r.get("pooled_metrics") != runs[0].get("pooled_metrics") for r in runs):
        return None
    return runs[0]


def assert_frames_equal_golden(result, golden_frames, keys=None):
    """Every golden value == ours; `keys` maps golden names to ours (default: the same)."""
    assert [f["frameNum"] for f in result["frames"]] == [g["frameNum"] for g in golden_frames]
    compared = 0
    for ours, theirs in zip(result["frames"], golden_frames):
        names = [k for k in theirs if k != "frameNum"]
        if keys is None:
            assert list(ours["metrics"]) == names, "metric names and their order"
        for name in names:
            mine = ours["metrics"][keys[name] if keys else name]
            assert same(mine, theirs[name]), (ours["frameNum"], name, mine, theirs[name])
            compared += 1
    return compared


@pytest.mark.parametrize("feature", ["speed_chroma", "speed_temporal"])
def test_speed_features_equal_libvmaf(feature, clips):
    """The SpEED-QA golden files in the repository, at the default options."""
    compared, clips_compared = 0, 0
    for name in CLIPS:
        golden = agreed_golden([TESTDATA / "golden" / f"{name}__o0__{feature}__{d}.json" for d in DISPATCHES])
        if golden is None:
            continue
        c = clips[name]
        result = speedqa.score(c.ref, c.dis, **c.geometry, features=feature, model=[])
        compared += assert_frames_equal_golden(result, golden["frames"], golden["metric_keys"])
        clips_compared += 1
    assert clips_compared == len(CLIPS)  # libvmaf's dispatches agree on every clip here
    print(f"\n[python] {feature}: {compared} values == libvmaf's on {clips_compared} clips")


def model_golden(name):
    folder = shared_testdata() / "models" / "golden"
    return agreed_golden([folder / f"{name}__vmaf_v0.6.1__{d}.json" for d in DISPATCHES])


def assert_pooled_equal_golden(result, golden):
    assert list(result["pooled_metrics"]) == list(golden["pooled_metrics"])
    for metric, pooled in golden["pooled_metrics"].items():
        for method, value in pooled.items():
            assert same(result["pooled_metrics"][metric][method], value), (metric, method)


# v6: libvmaf's SIMD ADM reads uninitialised memory at 80x80 (its golden
# files say so), so its dispatches disagree and that clip has no single truth
MODEL_CLIPS = [n for n in CLIPS if n != "v6"]


@pytest.mark.parametrize("name", MODEL_CLIPS)
def test_vmaf_model_equals_libvmaf_through_files(name, shared_clips):
    golden = model_golden(name)
    assert golden is not None, f"{name}: libvmaf's dispatches disagree"
    c = shared_clips[name]
    result = speedqa.score(c.ref, c.dis, **c.geometry, backend="cpu")  # model=None: vmaf_v0.6.1, as vmaf
    n = assert_frames_equal_golden(result, golden["frames"])
    assert_pooled_equal_golden(result, golden)
    print(f"\n[python] {name} vmaf_v0.6.1: {n} values == libvmaf's")


@pytest.mark.parametrize("name", ["v1", "v2", "v4"])  # 8-bit 4:2:0, 10-bit 4:2:0, 4:2:2
def test_vmaf_model_equals_libvmaf_through_numpy_planes(name, shared_clips):
    golden = model_golden(name)
    c = shared_clips[name]
    result = score_planes(c, planes_of(c, c.ref), planes_of(c, c.dis), backend="cpu")
    assert_frames_equal_golden(result, golden["frames"])
    assert_pooled_equal_golden(result, golden)
