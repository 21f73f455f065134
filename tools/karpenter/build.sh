#!/usr/bin/env bash
# Builds the autoscaler the real-cluster Karpenter suite (tests/real-cluster/karpenter_test.cc) and the
# autoscaling benchmark run beside gangplank: Karpenter's core with its KWOK cloud provider
# (sigs.k8s.io/karpenter/kwok, the provider Karpenter's own tests use: a NodeClaim becomes a Node that KWOK
# runs), from the module pinned by go.mod/go.sum here, into .tools/karpenter/bin/karpenter-kwok, and copies
# its CRDs (NodePool, NodeClaim, NodeOverlay, KWOKNodeClass) to .tools/karpenter/crd.yaml;
# scripts/real-cluster.sh --karpenter runs it.
# v1.14.0, not the newest served v1.15.0: v1.15.0 and v1.14.3 ask for Go 1.26.9 and 1.26.10, and the pins are
# built with the Go that is here (1.26.8).
# A stamp (.tools/karpenter/stamp) records what was built: a second run with the same pins does nothing.
# Exit codes: 0 built or already current; 3 Go is not installed; anything else is a build failure.
set -euo pipefail

pins="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$pins/../.." && pwd)"
out="$repo/.tools/karpenter"

# shellcheck source=scripts/go-tools.sh
source "$repo/scripts/go-tools.sh"
require_go build-karpenter "Karpenter cannot be built"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

stamp="$({ go version; cat "$pins/go.mod" "$pins/go.sum" "${BASH_SOURCE[0]}" "$repo/scripts/go-tools.sh"; } | sha256sum | cut -d' ' -f1)"
if [ -x "$out/bin/karpenter-kwok" ] && [ -s "$out/crd.yaml" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
mkdir -p "$out/bin"
rm -f "$out/stamp"
start=$SECONDS
cd "$pins"
echo "build-karpenter: building sigs.k8s.io/karpenter/kwok $(go list -m -f '{{.Version}}' sigs.k8s.io/karpenter) ($(go version | cut -d' ' -f3))" >&2
go build -p "${BUILD_JOBS:-2}" -trimpath -ldflags="-s -w" -o "$out/bin/karpenter-kwok" sigs.k8s.io/karpenter/kwok
dir="$(go list -m -f '{{.Dir}}' sigs.k8s.io/karpenter)"
for f in "$dir"/pkg/apis/crds/karpenter.sh_*.yaml "$dir"/kwok/apis/crds/*.yaml; do echo "---"; cat "$f"; done >"$out/crd.yaml"
echo "$stamp" >"$out/stamp"
echo "build-karpenter: built $out/bin/karpenter-kwok in $((SECONDS - start)) s" >&2
