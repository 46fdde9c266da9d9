#!/usr/bin/env bash
# The files built with -mavx2 / -mavx512f must define no code that other
# files share: the linker keeps one copy of each inline or template function
# (weak symbols) for the whole program and may keep the AVX-512 copy, which
# then faults with SIGILL on CPUs without AVX-512. Arguments: object files.
set -euo pipefail
checked=0
bad=0
for obj in "$@"; do
  # the files built for a wider instruction set: <name>_avx2.cpp, <name>_avx512.cpp
  case "$obj" in *_avx2.cpp.o|*_avx512.cpp.o) ;; *) continue ;; esac
  checked=$((checked + 1))
  shared=$(nm -C --defined-only "$obj" | awk '$2 ~ /^[WVu]$/' | grep -v 'DW.ref.__gxx_personality_v0' || true)
  if [ -n "$shared" ]; then
    echo "$obj defines code that other files may share (weak symbols):"
    echo "$shared"
    bad=1
  fi
done
[ $checked -gt 0 ] || { echo "no SIMD kernel objects were given"; exit 1; }
echo "[simd-objects] $checked SIMD kernel objects define no weak (shared) symbols"
exit $bad
