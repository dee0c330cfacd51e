#!/usr/bin/env bash
# PyTorch from Debian, for the side-by-side step in `npm run bench -- model`. Optional: the test
# suite never needs it. libopenblas0-pthread matters: without it Debian's torch runs its matmuls
# on the reference BLAS, 20 to 70 times slower. Needs root.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
  echo "install-torch: run as root (apt-get installs python3-torch and libopenblas0-pthread)" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch libopenblas0-pthread
