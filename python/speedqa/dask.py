"""A catalogue on a Dask cluster: titles, and long clips cut into frame
ranges, scored on the workers (each with its GPU where it has one: the
default backend ``auto``) and merged exactly::

    from dask.distributed import Client
    import speedqa.dask
    client = Client("scheduler:8786")
    results = speedqa.dask.score_many([("ref.y4m", "a.y4m"), ("ref.y4m", "b.y4m")], client,
                                      model="version=vmaf_v1.0.16_3d0h")
    results[0]["pooled_metrics"]["vmaf"]["mean"]

Each result is what ``speedqa.score`` returns for the pair: every per-frame
value and every pooled value equal (the ranges' frames are scored with the
warm-up frames before them and the look-ahead after them that the temporal
features need, and pooled again over the whole clip in libvmaf's order).
The cluster must have speedqa importable on every worker.
"""
from . import _speedqa

__all__ = ["score_many", "ranges"]


def ranges(frames, chunk_frames):
    """The (first, end) frame ranges of a clip of ``frames`` frames cut every
    ``chunk_frames`` frames; the last one runs to the clip's end (end None)."""
    if chunk_frames is None or frames is None or frames <= chunk_frames:
        return [(0, None)]
    cuts = list(range(0, frames, chunk_frames))
    return [(a, b) for a, b in zip(cuts, cuts[1:])] + [(cuts[-1], None)]


def _score_range(ref, dis, frame_range, options):
    return _speedqa.score(ref, dis, frame_range=frame_range, **options)


def _merge(parts):
    """One clip's result from its ranges' results, in order."""
    frames = []
    for part in parts:
        shard = part.get("shard")
        if shard is not None and shard["first"] != len(frames):
            raise _speedqa.Error(f"merge: a range starts at frame {shard['first']}, not {len(frames)}")
        frames.extend(part["frames"])
    last = parts[-1].get("shard")
    if last is not None and not last["clip_end"]:
        raise _speedqa.Error(f"merge: the ranges end at frame {len(frames)}, before the clip's end")
    return {"frames": frames, "pooled_metrics": _speedqa.pool(frames)}


def score_many(pairs, client, *, chunk_frames=None, width=None, height=None, pixel_format=None, bitdepth=None,
               features=(), model=None, backend="auto", threads=0):
    """Scores every (reference, distorted) pair of ``pairs`` on the cluster of
    ``client`` (a dask.distributed Client); returns their results in order,
    each equal to ``speedqa.score(ref, dis, ...)``'s.

    ``chunk_frames``: cut clips longer than this into ranges of this many
    frames, scored on different workers (default: one task per pair). Clips
    whose length is known only by decoding them (encoded video) are one task.
    The other arguments are ``speedqa.score``'s; ``backend="auto"`` uses each
    worker's GPU where it has one.
    """
    options = dict(width=width, height=height, pixel_format=pixel_format, bitdepth=bitdepth, features=features,
                   model=model, backend=backend, threads=threads)
    geometry = dict(width=width, height=height, pixel_format=pixel_format, bitdepth=bitdepth)
    tasks = []
    for ref, dis in pairs:
        frames = None
        if chunk_frames is not None:
            a, b = _speedqa.frame_count(ref, **geometry), _speedqa.frame_count(dis, **geometry)
            frames = None if a is None or b is None else min(a, b)
        parts = [client.submit(_score_range, ref, dis, r if r != (0, None) else None, options, pure=False)
                 for r in ranges(frames, chunk_frames)]
        tasks.append(client.submit(_merge, parts, pure=False))
    return client.gather(tasks)
