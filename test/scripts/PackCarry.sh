#!/usr/bin/env bash
# scripts/pack-carry.sh and scripts/unpack-carry.sh round-trip the folders a
# GPU call carries (ctest scripts.pack-carry), in a scratch repository with
# the two scripts: a packed folder comes back as it was, a newer archive
# replaces what an earlier call left, an unchanged one is not unpacked
# again, --only drops the other archives, and a folder that is not
# git-ignored or not there is refused.
# Usage: PackCarry.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1
work=$2
rm -rf "$work" && mkdir -p "$work/scripts"
fail() { echo "PackCarry: $*" >&2; exit 1; }
cp "$src/scripts/pack-carry.sh" "$src/scripts/unpack-carry.sh" "$work/scripts/"
cd "$work"
git init -q .
printf '/.deps/\n/.gpudata/\n/.fbdata/\n/.carry/\n' > .gitignore
mkdir -p .deps/include .gpudata/data/kinship .fbdata
echo header > .deps/include/h.hpp
echo openmpi > .deps/openmpi.tar.gz
printf 'a\tr\tb\n' > .gpudata/data/kinship/train.tsv
echo fb > .fbdata/x
mkdir visible && echo x > visible/y

scripts/pack-carry.sh > pack.log || fail "pack: $(cat pack.log)"
[ -f .carry/deps.tar.gz ] && [ -f .carry/gpudata.tar.gz ] || fail "no archives: $(ls .carry)"
tar -tzf .carry/deps.tar.gz | grep -q openmpi && fail "Open MPI packed without PACK_CARRY_OPENMPI"
grep -q 'MiB of the 64 MiB a call carries' pack.log || fail "no size line: $(cat pack.log)"

# On the GPU machine: the folders are not there until unpacked.
rm -rf .deps .gpudata
scripts/unpack-carry.sh
[ "$(cat .deps/include/h.hpp)" = header ] || fail ".deps not unpacked"
[ "$(cat .gpudata/data/kinship/train.tsv)" = "$(printf 'a\tr\tb')" ] || fail ".gpudata not unpacked"

# Unchanged archive: what is there stays (a marker survives).
touch .gpudata/marker
scripts/unpack-carry.sh
[ -f .gpudata/marker ] || fail "an unchanged archive was unpacked again"

# A newer archive replaces the folder an earlier call left.
echo new > .gpudata/data/kinship/train.tsv
rm .gpudata/marker .gpudata/.unpacked-from
scripts/pack-carry.sh .gpudata > /dev/null
echo old > .gpudata/data/kinship/train.tsv
touch .gpudata/marker
scripts/unpack-carry.sh
[ "$(cat .gpudata/data/kinship/train.tsv)" = new ] || fail "a newer archive did not replace the folder"
[ ! -e .gpudata/marker ] || fail "the earlier call's files stayed"

# --only keeps the named archives alone.
scripts/pack-carry.sh --only .deps .fbdata > /dev/null
[ "$(ls .carry | tr '\n' ' ')" = "deps.tar.gz fbdata.tar.gz " ] || fail "--only left: $(ls .carry)"

# Refusals: a folder git does not ignore, one that is missing, a path.
if scripts/pack-carry.sh visible > out.log 2>&1; then fail "packed a folder that travels anyway"; fi
grep -q 'not a hidden folder' out.log || fail "$(cat out.log)"
mkdir .visible
if scripts/pack-carry.sh .visible > out.log 2>&1; then fail "packed a folder git does not ignore"; fi
grep -q 'is not git-ignored' out.log || fail "$(cat out.log)"
if scripts/pack-carry.sh .missing > out.log 2>&1; then fail "packed a missing folder"; fi
grep -q 'no such folder' out.log || fail "$(cat out.log)"
echo "PackCarry: ok"
