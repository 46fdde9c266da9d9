#!/usr/bin/env bash
# Installs the build into a temporary prefix, moves it elsewhere (the install
# is relocatable), and builds and runs C and C++ consumers on it, once with
# find_package(speedqa) (shared and static library) and once with pkg-config
# (plain cc / c++ command lines): each scores the first frames of the v1
# sample with a model and a feature and must print exactly what the installed
# speedqa command prints for them (%.17g text, compared byte for byte).
# Also checks the installed tree: headers that compile on their own and
# include nothing outside speedqa/, the soname, the exported symbols, the
# model files.
#   install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR [EXTRA_FLAGS]
# EXTRA_FLAGS go to every compile and link (the sanitizer build's flags).
set -euo pipefail
build=$1 src=$2 work=$3 flags=${4:-}
frames=4 model=version=vmaf_v0.6.1
rm -rf "$work" && mkdir -p "$work"
say() { echo "[install] $*"; }
fail() { echo "[install] FAILED: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/staged" >"$work/install.log"
mv "$work/staged" "$work/prefix"
prefix=$work/prefix
libdir=$(dirname "$(find "$prefix" -name libspeedqa.a)")
say "installed $(find "$prefix" -type f | wc -l) files, $(du -sk "$prefix" | cut -f1) KiB; moved to $prefix"

# the tree
for f in bin/speedqa include/speedqa/speedqa.h include/speedqa/speedqa.hpp share/speedqa/models/LICENSE; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
for f in "$libdir"/libspeedqa.so "$libdir"/cmake/speedqa/speedqaConfig.cmake \
         "$libdir"/cmake/speedqa/speedqaConfigVersion.cmake "$libdir"/pkgconfig/speedqa.pc; do
  [ -e "$f" ] || fail "$f is not installed"
done
diff -r "$src/models" "$prefix/share/speedqa/models" || fail "the installed models differ from models/"
soname=$(readelf -d "$libdir/libspeedqa.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ -n "$soname" ] && [ -e "$libdir/$soname" ] || fail "libspeedqa.so has no soname, or its file is missing"
say "soname $soname"

# headers: each compiles on its own, includes only the standard library and speedqa/
if grep -n '#include "' "$prefix"/include/speedqa/* | grep -v '#include "speedqa/'; then
  fail "an installed header includes a file outside speedqa/"
fi
for h in "$prefix"/include/speedqa/*; do
  name=speedqa/$(basename "$h")
  echo "#include <$name>" | c++ -std=c++17 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$prefix/include" -x c++ - ||
    fail "$name does not compile on its own as C++17"
done
echo '#include <speedqa/speedqa.h>' | cc -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$prefix/include" -x c - ||
  fail "speedqa/speedqa.h does not compile on its own as C99"
say "every header compiles on its own"

# the shared library exports the public API only
exported=$(nm -D --defined-only -C "$libdir/libspeedqa.so" | cut -d' ' -f3-)
unexpected=$(grep -v -E '^(speedqa_[a-z_]+|speedqa::(Scorer::(Scorer|~Scorer|operator=|[a-z_]+)|VideoFormat::[a-z_]+|feature_names|version|pixel_format_name|picture_in_frame)(\[abi:cxx11\])?\(.*|speedqa::Error::~Error\(\)|(typeinfo|typeinfo name|vtable) for speedqa::Error)$' <<<"$exported" || true)
[ -z "$unexpected" ] || fail "libspeedqa.so exports more than the API: $unexpected"
for fn in $(sed -n 's/^[a-z_ *]*\b\(speedqa_[a-z_]*\)(.*/\1/p' "$prefix/include/speedqa/speedqa.h"); do
  grep -qx "$fn" <<<"$exported" || fail "libspeedqa.so does not export $fn"
done
say "libspeedqa.so exports $(wc -l <<<"$exported") symbols, all of the API"

# what the installed command prints
xz -dc "$src/testdata/v1_ref.yuv.xz" >"$work/ref.yuv"
xz -dc "$src/testdata/v1_dis.yuv.xz" >"$work/dis.yuv"
geometry=(576 324)
cli() {
  "$prefix/bin/speedqa" -q -r "$work/ref.yuv" -d "$work/dis.yuv" -w "${geometry[0]}" -h "${geometry[1]}" -p 420 -b 8 \
    --frame_cnt "$frames" --feature speed_chroma -m "$1" --csv --precision max -o "$2"
}
cli "$model" "$work/expected.csv"
[ "$(wc -l <"$work/expected.csv")" -eq $((frames + 1)) ] || fail "speedqa printed no $frames frames"

# runs one consumer and compares its output with the command's
check() {
  local exe=$1 expected=$2 m=$3
  "$exe" "$work/ref.yuv" "$work/dis.yuv" "${geometry[@]}" "$frames" "$m" >"$exe.csv" || fail "$exe failed"
  cmp "$expected" "$exe.csv" || { diff "$expected" "$exe.csv" | head -5; fail "$exe printed other values than speedqa"; }
  say "${exe#"$work"/}: $frames frames x $(($(head -1 "$expected" | tr -cd , | wc -c) - 1)) values identical to speedqa's"
}

# find_package: a C and a C++ project, each with the shared and the static library
for lang in C CXX; do
  dir=$work/cmake_$lang
  cmake -S "$src/tests/install" -B "$dir" -G Ninja -DLANG=$lang -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_${lang}_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$dir.log" ||
    { cat "$dir.log"; fail "find_package(speedqa) in a $lang project"; }
  cmake --build "$dir" >>"$dir.log" || { cat "$dir.log"; fail "the $lang consumers do not build with find_package"; }
  check "$dir/consumer_shared" "$work/expected.csv" "$model"
  check "$dir/consumer_static" "$work/expected.csv" "$model"
done

# pkg-config: plain command lines, as the README shows them
export PKG_CONFIG_PATH=$libdir/pkgconfig
# shellcheck disable=SC2046,SC2086
cc -std=c99 -Wall -Wextra -Werror $flags "$src/tests/install/consumer.c" -o "$work/pkgconfig_c" $(pkg-config --cflags --libs speedqa) ||
  fail "the C consumer does not link with pkg-config --libs speedqa"
# shellcheck disable=SC2046,SC2086
c++ -std=c++17 -Wall -Wextra -Werror $flags "$src/tests/install/consumer.cpp" -o "$work/pkgconfig_cpp" $(pkg-config --cflags --libs speedqa) ||
  fail "the C++ consumer does not link with pkg-config --libs speedqa"
export LD_LIBRARY_PATH=$libdir
check "$work/pkgconfig_c" "$work/expected.csv" "$model"
check "$work/pkgconfig_cpp" "$work/expected.csv" "$model"

# the installed library and command find the installed models where the
# prefix now lies: a model only the installed folder has
cp "$prefix/share/speedqa/models/vmaf_v0.6.1.json" "$prefix/share/speedqa/models/speedqa_install_test.json"
cli version=speedqa_install_test "$work/expected_moved.csv"
check "$work/pkgconfig_c" "$work/expected_moved.csv" version=speedqa_install_test
say "the moved install finds its models (library and command)"
