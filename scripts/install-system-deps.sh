#!/usr/bin/env bash
# Debian packages the test suite needs. Idempotent: installs only what is missing, so it is
# cheap on a machine that already has them. Needs root (CI and the dev machines run as root).
set -euo pipefail

need_root() {
  if [ "$(id -u)" != 0 ]; then
    echo "install-system-deps: $1 (run this script as root)" >&2
    exit 1
  fi
}

# slurm-wlm and munge: the one-node Slurm cluster of scripts/slurm-local.sh (the Slurm tests).
# python3-numpy: the independent float64 reference of the pretrained decoders (tests/helpers/hf_reference.py).
# python3-protobuf, python3-crcmod: the independent reader of TensorBoard event files (tests/helpers/tfevents_reader.py).
# python3-pandas: the exports read back as a researcher reads them (tests/helpers/pandas_reader.py).
packages=(python3 python3-numpy python3-protobuf python3-crcmod python3-pandas make g++ chromium slurm-wlm munge)

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  need_root "missing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

# WebGPU tests run Dawn (npm `webgpu`) on Mesa's software Vulkan driver (llvmpipe/lavapipe).
# Debian 12's own Mesa 22 is too old for Dawn; Mesa >= 25 comes from bookworm-backports.
mesa_major() {
  dpkg-query -W -f='${Status} ${Version}' mesa-vulkan-drivers 2>/dev/null |
    sed -n 's/^install ok installed \([0-9]*\)\..*/\1/p'
}

if [ "$(mesa_major || true)" = "" ] || [ "$(mesa_major)" -lt 25 ]; then
  need_root "mesa-vulkan-drivers >= 25 (bookworm-backports) is missing"
  . /etc/os-release
  codename="${VERSION_CODENAME:-bookworm}"
  if ! grep -rqs -- "${codename}-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "deb http://deb.debian.org/debian ${codename}-backports main" \
      > "/etc/apt/sources.list.d/${codename}-backports.list"
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t "${codename}-backports" mesa-vulkan-drivers
fi
