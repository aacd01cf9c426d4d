#!/usr/bin/env bash
# Run HERE before a GPU call: packs the git-ignored folders the call needs
# into .carry/<name>.tar.gz, so that the call carries one folder, `.carry`,
# and scripts/unpack-carry.sh (run by scripts/gpu-build.sh, which every GPU
# script starts with) unpacks them there.
#
# Why packed: a call carries at most 64 MiB, the working tree (tracked and
# untracked-but-not-ignored files) included, and the tree had grown to 40
# MiB with bench/results/ (24 MiB since its large files are gzipped).
# Unpacked, .deps and .gpudata no longer fit beside it (2026-12-05: 67 MiB
# on disk, refused); packed, the datasets' TSVs and the bundles' PTX take
# two thirds of their size or less (.gpudata without fb15k-237 23.6 -> 14.1
# MB).
#
#   scripts/pack-carry.sh [--only] [FOLDER...]   (default: .deps .gpudata)
#
# Each named folder replaces its archive; archives of folders not named
# are left (a call that needs .gpudata and .fbdata packs each once), or
# removed with --only (a whole split's call: .deps and .fbdata). Prints
# what a call with `carry: [".carry"]` sends, measured as disk usage (what
# the device tool counted when it refused 63.1 MiB of file sizes), and
# fails when that reaches 64 MiB.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
only=0
if [ "${1:-}" = --only ]; then
  only=1
  shift
fi
folders=("$@")
[ ${#folders[@]} -gt 0 ] || folders=(.deps .gpudata)
mkdir -p .carry
if [ $only = 1 ]; then
  for archive in .carry/*.tar.gz; do
    [ -e "$archive" ] || continue
    keep=0
    for folder in "${folders[@]}"; do
      folder=${folder%/}
      [ "$archive" != ".carry/${folder#.}.tar.gz" ] || keep=1
    done
    [ $keep = 1 ] || rm -f "$archive"
  done
fi
for folder in "${folders[@]}"; do
  folder=${folder%/}
  case $folder in
    .*) ;;
    *) echo "pack-carry: $folder: not a hidden folder of the repository root" >&2; exit 2 ;;
  esac
  [[ $folder != */* ]] ||
    { echo "pack-carry: $folder: name a folder of the repository root" >&2; exit 2; }
  [ -d "$folder" ] || { echo "pack-carry: $folder: no such folder (prepare it first)" >&2; exit 1; }
  git check-ignore -q "$folder" ||
    { echo "pack-carry: $folder is not git-ignored: it travels as it is" >&2; exit 1; }
  archive=.carry/${folder#.}.tar.gz
  # Open MPI's archive stays out unless asked for: with it .deps is 40 MB
  # (scripts/make-deps.sh; only the MPI calls need it).
  exclude=()
  [ "$folder" != .deps ] || [ -n "${PACK_CARRY_OPENMPI:-}" ] ||
    exclude=(--exclude=.deps/openmpi.tar.gz)
  tar -czf "$archive.tmp" "${exclude[@]}" "$folder"
  mv "$archive.tmp" "$archive"
done

# What travels: the tree (tracked and untracked-not-ignored files) and
# .carry, in disk blocks.
tree=$(git ls-files -z --cached --others --exclude-standard |
       du -c -B1 --files0-from=- 2>/dev/null | tail -1 | cut -f1)
carry=$(du -s -B1 .carry | cut -f1)
total=$((tree + carry))
limit=$((64 * 1024 * 1024))
ls -l .carry/*.tar.gz | awk '{printf "pack-carry: %s %.1f MiB\n", $NF, $5 / 1048576}'
awk -v t="$tree" -v c="$carry" 'BEGIN {
  printf "pack-carry: the tree %.1f MiB + .carry %.1f MiB = %.1f MiB of the 64 MiB a call carries\n",
         t / 1048576, c / 1048576, (t + c) / 1048576 }'
if [ "$total" -ge "$limit" ]; then
  echo "pack-carry: too large to carry: remove the archives or datasets this call does not need" >&2
  exit 1
fi
