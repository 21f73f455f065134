#!/usr/bin/env bash
# Builds Kueue's manager (sigs.k8s.io/kueue/cmd/kueue), the peer the cluster benchmark runs as its kueue
# system (bench/cluster/systems/kueue.md), from the module pinned by go.mod/go.sum beside this file, into
# <repo>/.tools/peers/bin/kueue-manager, and copies the module's CRDs (config/components/crd/bases) and
# webhook manifests (config/components/webhook/manifests.yaml) to <repo>/.tools/peers/kueue/.
# A stamp (.tools/peers/kueue/stamp) records what was built: a second run with the same pins and the same
# Go does nothing.
# Exit codes: 0 built or already current; 3 Go is not installed; anything else is a build failure.
set -euo pipefail

pins="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$pins/../../.." && pwd)"
bin="$repo/.tools/peers/bin"
out="$repo/.tools/peers/kueue"
binary="$bin/kueue-manager"
version=v0.17.0  # Kueue's release, as go.mod requires it

# shellcheck source=scripts/go-tools.sh
source "$repo/scripts/go-tools.sh"
require_go build-kueue "Kueue's manager cannot be built"  # Kueue v0.17.0 needs go >= 1.25.0
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

stamp="$({ go version; cat "$pins/go.mod" "$pins/go.sum" "${BASH_SOURCE[0]}" "$repo/scripts/go-tools.sh"; } | sha256sum | cut -d' ' -f1)"
if [ -x "$binary" ] && [ -s "$out/webhook-manifests.yaml" ] && [ -d "$out/crd" ] \
   && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi

mkdir -p "$bin" "$out"
rm -f "$out/stamp"
start=$SECONDS
echo "build-kueue: building sigs.k8s.io/kueue/cmd/kueue $version ($(go version | cut -d' ' -f3))" >&2
# The version stamp is the one Kueue's own Makefile gives its image (pkg/version).
(cd "$pins" && go build -p "${BUILD_JOBS:-2}" -trimpath \
  -ldflags="-s -w -X sigs.k8s.io/kueue/pkg/version.GitVersion=$version" \
  -o "$binary" sigs.k8s.io/kueue/cmd/kueue)

# The CRDs and the webhook configurations ship inside the module (what its kustomize/Helm install
# applies), not its binary.
dir="$(cd "$pins" && go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)"
rm -rf "$out/crd"
mkdir -p "$out/crd"
cp "$dir"/config/components/crd/bases/*.yaml "$out/crd/"
cp "$dir/config/components/webhook/manifests.yaml" "$out/webhook-manifests.yaml"
chmod -R u+w "$out/crd" "$out/webhook-manifests.yaml"

echo "$stamp" >"$out/stamp"
echo "build-kueue: built $binary in $((SECONDS - start)) s" >&2
