"""speedqa.dask: titles and frame ranges of long clips scored on a local
multi-process Dask cluster and merged give every value that one
speedqa.score() run of each pair gives (==), with the temporal features whose
outputs reach across the cuts. Needs Debian's python3-dask and
python3-distributed (tools/setup.sh --tests)."""
import pytest

import speedqa
import speedqa.dask
from conftest import shared_testdata, clips_of

distributed = pytest.importorskip("distributed", reason="python3-distributed is not installed: speedqa.dask not tested")

FEATURES = ["motion=motion_five_frame_window=true:motion_moving_average=true", "speed_temporal"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_ranges_cover_a_clip_once():
    assert speedqa.dask.ranges(10, 4) == [(0, 4), (4, 8), (8, None)]
    assert speedqa.dask.ranges(8, 4) == [(0, 4), (4, None)]
    assert speedqa.dask.ranges(3, 4) == [(0, None)]
    assert speedqa.dask.ranges(None, 4) == [(0, None)]


def test_score_many_equals_single_runs(client, tmp_path):
    source = shared_testdata()
    if source is None:
        pytest.skip("the shared test data is absent")
    clips = clips_of(source, tmp_path)
    pairs, geometry = [], None
    # the 4:2:0 8-bit clips of one size share a geometry: one call, several titles
    for name in ("v1",):
        c = clips[name]
        pairs += [(str(c.ref), str(c.dis)), (str(c.dis), str(c.ref))]
        geometry = c.geometry
    compared = 0
    for chunk in (3, 5, None):
        results = speedqa.dask.score_many(pairs, client, chunk_frames=chunk, features=FEATURES, backend="cpu",
                                          **geometry)
        for (ref, dis), got in zip(pairs, results):
            want = speedqa.score(ref, dis, features=FEATURES, backend="cpu", **geometry)
            assert got == want, (ref, dis, chunk)
            compared += sum(len(f["metrics"]) for f in got["frames"])
    print(f"[python] speedqa.dask: {compared} values of merged ranges == single runs")


def test_a_range_is_a_shard(clips):
    c = clips["v1"]
    full = speedqa.score(c.ref, c.dis, features=FEATURES, backend="cpu", **c.geometry)
    part = speedqa.score(c.ref, c.dis, features=FEATURES, backend="cpu", frame_range=(2, 5), **c.geometry)
    assert part["shard"] == {"first": 2, "end": 5, "clip_end": False}
    assert part["frames"] == full["frames"][2:5]
    tail = speedqa.score(c.ref, c.dis, features=FEATURES, backend="cpu", frame_range=(5, None), **c.geometry)
    assert tail["shard"]["clip_end"] and tail["frames"] == full["frames"][5:]
    with pytest.raises(speedqa.Error, match="holds no frame"):
        speedqa.score(c.ref, c.dis, frame_range=(4, 4), **c.geometry)
    assert speedqa.frame_count(c.ref, **c.geometry) == c.frames
