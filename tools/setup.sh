#!/usr/bin/env bash
# Installs the Debian 12 packages speedqa needs, and only those missing:
#   tools/setup.sh           what building the command needs
#   tools/setup.sh --tests   that and what the test suite needs
# Runs apt-get as root, or through sudo; says what it installs.
set -euo pipefail
build_pkgs=(cmake ninja-build g++ libcli11-dev xz-utils libavformat-dev libavcodec-dev libavutil-dev libexpat1-dev)
test_pkgs=(libgtest-dev nlohmann-json3-dev liblzma-dev pkgconf ffmpeg libcairo2-dev pybind11-dev python3-dev python3-pytest
  python3-numpy python3-dask python3-distributed
  clang libclang-rt-14-dev)  # clang, libFuzzer: tools/fuzz.sh

case "${1:-}" in
  "") pkgs=("${build_pkgs[@]}") ;;
  --tests) pkgs=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
  *) echo "usage: tools/setup.sh [--tests]" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "speedqa setup: everything is installed (${pkgs[*]})"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "speedqa setup: needs ${missing[*]}; run as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "speedqa setup: installing ${missing[*]} (apt-get${as_root:+ through sudo})"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq || echo "speedqa setup: apt-get update failed; trying with the package lists at hand"
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "speedqa setup: installed ${missing[*]}"
