#!/usr/bin/env bash
# scripts/make-deps.sh writes DEST whole or not at all (ctest
# package.make-deps-atomic): a failed run leaves no DEST, or the previous one
# untouched, and no temporary beside it; a good run gives the complete tree.
# Open MPI is left out (PROOFC_DEPS_MPI=0: it needs apt-get download).
# Usage: MakeDepsAtomic.sh SOURCE_DIR WORK_DIR
set -euo pipefail
source_dir=$1
work=$2
make_deps=$source_dir/scripts/make-deps.sh
rm -rf "$work"
mkdir -p "$work"
dest=$work/.deps
fail() { echo "MakeDepsAtomic: $*" >&2; exit 1; }
leftovers() { (cd "$work" && ls -A | grep -v '^\.deps$' || true); }

# 1. Fails half-way (the headers copied, the GoogleTest libraries missing).
if PROOFC_DEPS_MPI=0 PROOFC_DEPS_SOURCE_LIB=$work/no-lib "$make_deps" "$dest" \
    > "$work.log" 2>&1; then
  fail "make-deps succeeded without the GoogleTest libraries"
fi
grep -q "make-deps: missing $work/no-lib/libgtest.a" "$work.log" ||
  fail "unexpected failure: $(cat "$work.log")"
[ ! -e "$dest" ] || fail "a failed run left $dest"
[ -z "$(leftovers)" ] || fail "a failed run left $(leftovers)"

# 2. A good run: the complete tree.
PROOFC_DEPS_MPI=0 "$make_deps" "$dest" > "$work.log" 2>&1 ||
  fail "make-deps failed: $(cat "$work.log")"
for f in include/fmt include/nlohmann include/CLI include/xxhash.h \
         gtest/include/gtest gtest/lib/libgtest.a gtest/lib/libgmock_main.a; do
  [ -e "$dest/$f" ] || fail "$dest/$f missing after a good run"
done
[ -z "$(leftovers)" ] || fail "a good run left $(leftovers)"
before=$(cd "$dest" && find . | sort | md5sum)

# 3. A failed run over it leaves the previous tree as it was.
if PROOFC_DEPS_MPI=0 PROOFC_DEPS_SOURCE_INCLUDE=$work/no-include \
    "$make_deps" "$dest" > "$work.log" 2>&1; then
  fail "make-deps succeeded without the headers"
fi
[ "$(cd "$dest" && find . | sort | md5sum)" = "$before" ] ||
  fail "a failed run changed the previous $dest"
[ -z "$(leftovers)" ] || fail "a failed run left $(leftovers)"
rm -rf "$work" "$work.log"
echo "MakeDepsAtomic: a failed run leaves nothing or the previous tree; a good run the whole tree"
