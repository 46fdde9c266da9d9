"""speedqa: Netflix libvmaf's features and VMAF models, computed exactly as
libvmaf computes them (the same bits as the ``vmaf`` command), on the CPU and
on NVIDIA GPUs.

Files (y4m; raw .yuv with its geometry)::

    import speedqa
    r = speedqa.score("ref.y4m", "dis.y4m", features=["speed_chroma"])
    r["pooled_metrics"]["vmaf"]["mean"]          # as the command's JSON
    [f["metrics"]["vmaf"] for f in r["frames"]]

Pictures in memory (numpy arrays, one per plane, uint8 or uint16, any
strides)::

    s = speedqa.Scorer(1920, 1080, pixel_format="420", bitdepth=10)
    frames = []
    for ref, dis in pairs:                       # each (Y, U, V)
        frames += s.push(ref, dis)
    frames += s.flush()
    speedqa.pool(frames)["vmaf"]["mean"]

``push_batch(refs, diss)`` takes several pictures at once (the CPU engine
scores them in parallel with ``threads=``). ``push`` returns the frames whose
values became final, as a list of
``{"frameNum": i, "metrics": {...}}``: usually the frame just pushed, but
features that compare a frame with the next one (the motion feature of the
VMAF models) hold it back until then, so the first push of a VMAF run returns
``[]`` and ``flush()`` returns the last frame.

``model=None`` computes the ``vmaf`` command's default model, vmaf_v0.6.1, beside
the features asked for; ``model=[]`` (or ``""``) computes the features only;
``model="version=vmaf_v1.0.16"`` or a list of such strings takes anything the
command's ``--model`` takes.

Bad input or options raise ``speedqa.Error`` (a ``ValueError``) with the
library's one-line message; what the command warns about (one file shorter
than the other) is a ``UserWarning``. The GIL is released while frames are
read and scored, so other Python threads run meanwhile.

``score(..., frame_range=(first, end))`` scores frames first..end-1 (end None:
to the clip's end), reading the frames before and after them that temporal
features need, and says which in ``result["shard"]``; ``speedqa.dask`` shards
titles and long clips over a Dask cluster and merges them exactly.
"""
from pathlib import Path as _Path

from . import _speedqa
from ._speedqa import Error, Scorer, __version__, feature_names, frame_count, pool, score

# The models this package ships (pip install), for version=NAME.
_models = _Path(__file__).with_name("models")
if _models.is_dir():
    _speedqa._add_model_dir(str(_models))

__all__ = ["Error", "Scorer", "feature_names", "frame_count", "pool", "score", "__version__"]
