"""pip install . -- the Python module speedqa, built with CMake.

Needs what the C++ build needs, plus pybind11 and Python's headers (Debian 12:
cmake ninja-build g++ libcli11-dev libexpat1-dev pybind11-dev python3-dev).
There is no pyproject.toml on purpose: without one, pip builds with the
setuptools already installed (Debian's python3-setuptools) instead of fetching
it into an isolated environment, so `pip install .` works offline. Newer pips
that insist on build isolation: `pip install --no-build-isolation .`.

SPEEDQA_CMAKE_ARGS passes more CMake options, e.g. "-DSPEEDQA_CUDA=OFF" to
skip the CUDA engine where nvcc is installed.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
VERSION = re.search(r"project\(speedqa VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


class CMakeBuild(build_ext):
    """Builds the target speedqa_python and puts the module where setuptools wants it."""

    def build_extension(self, ext):
        build_dir = Path(self.build_temp).resolve() / "cmake"
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir), *generator, "-DCMAKE_BUILD_TYPE=Release",
                        "-DSPEEDQA_PYTHON=ON", "-DSPEEDQA_BUILD_TESTS=OFF", "-DSPEEDQA_BUILD_BENCH=OFF",
                        f"-DPython_EXECUTABLE={sys.executable}",
                        *shlex.split(os.environ.get("SPEEDQA_CMAKE_ARGS", ""))], check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "speedqa_python", "-j", str(os.cpu_count() or 1)],
                       check=True)
        built = next((build_dir / "python" / "speedqa").glob("_speedqa*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, target)


class BuildPyWithModels(build_py):
    """The package with the VMAF models that version=NAME loads (models/, with their licence)."""

    def run(self):
        super().run()
        models = Path(self.build_lib) / "speedqa" / "models"
        models.mkdir(parents=True, exist_ok=True)
        for f in (ROOT / "models").iterdir():
            if f.suffix == ".json" or f.name in ("LICENSE", "README.md"):
                shutil.copy2(f, models / f.name)


setup(
    name="speedqa",
    version=VERSION,
    description="Netflix libvmaf's features and VMAF models, exact (the same bits as libvmaf), on CPU and CUDA",
    long_description=(ROOT / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    python_requires=">=3.8",
    packages=["speedqa"],
    package_dir={"": "python"},
    ext_modules=[Extension("speedqa._speedqa", sources=[])],
    cmdclass={"build_ext": CMakeBuild, "build_py": BuildPyWithModels},
    options={"build": {"build_base": "build-pip"}},
    zip_safe=False,
)
