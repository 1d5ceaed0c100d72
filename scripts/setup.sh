#!/usr/bin/env bash
# Installs the Debian packages the project needs, only those that are missing.
# Idempotent: when everything is present it only asks dpkg, which takes well
# under a second.
set -euo pipefail

packages=(
    build-essential cmake pkg-config
    libcmocka-dev
    clang libclang-rt-14-dev
    valgrind
    python3-dev python3-numpy python3-pytest python3-torch
    libtorch-dev gnuplot-nox
)

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
