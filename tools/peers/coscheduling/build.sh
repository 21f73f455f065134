#!/usr/bin/env bash
# Builds scheduler-plugins' scheduler (kube-scheduler with the Coscheduling plugin among others), the peer
# the cluster benchmark runs as its coscheduling system (bench/cluster/systems/coscheduling.md), from the
# module pinned by go.mod/go.sum beside this file, into <repo>/.tools/peers/bin/coscheduling-scheduler, and
# copies the module's PodGroup CRD to <repo>/.tools/peers/coscheduling/.
# A stamp (.tools/peers/coscheduling/stamp) records what was built: a second run with the same pins and
# the same Go does nothing.
# Exit codes: 0 built or already current; 3 Go is not installed; anything else is a build failure.
set -euo pipefail

pins="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$pins/../../.." && pwd)"
bin="$repo/.tools/peers/bin"
out="$repo/.tools/peers/coscheduling"
binary="$bin/coscheduling-scheduler"
crd="$out/scheduling.x-k8s.io_podgroups.yaml"
version=v0.34.7  # scheduler-plugins' release, as go.mod requires it

# shellcheck source=scripts/go-tools.sh
source "$repo/scripts/go-tools.sh"
require_go build-coscheduling "scheduler-plugins' scheduler cannot be built"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

stamp="$({ go version; cat "$pins/go.mod" "$pins/go.sum" "$pins"/unbuilt/*/go.mod "${BASH_SOURCE[0]}" "$repo/scripts/go-tools.sh"; } | sha256sum | cut -d' ' -f1)"
if [ -x "$binary" ] && [ -s "$crd" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi

mkdir -p "$bin" "$out"
rm -f "$out/stamp"
start=$SECONDS
echo "build-coscheduling: building sigs.k8s.io/scheduler-plugins/cmd/scheduler $version ($(go version | cut -d' ' -f3))" >&2
# The binary is kube-scheduler's command (k8s.io/kubernetes, as pinned) with the plugins added, so it is
# stamped with that Kubernetes version, as scripts/build-kube-binaries.sh stamps the stock one. Unstamped
# it reports v0.0.0-master; stamped with scheduler-plugins' own version (its Makefile's way) it refuses to
# start: "emulation version 0.34 is not between [1.31, 0.34.0]".
kube="$(cd "$pins" && go list -m -f '{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}' k8s.io/kubernetes)"
ldflags="-s -w $(kube_version_ldflags "$kube")"
(cd "$pins" && go build -p "${BUILD_JOBS:-2}" -trimpath -ldflags="$ldflags" \
  -o "$binary" sigs.k8s.io/scheduler-plugins/cmd/scheduler)

# The PodGroup CRD ships inside the module (config/crd/bases, which its manifests/ mirror), not its binary.
dir="$(cd "$pins" && go list -m -f '{{.Dir}}' sigs.k8s.io/scheduler-plugins)"
cp "$dir/config/crd/bases/scheduling.x-k8s.io_podgroups.yaml" "$crd"
chmod u+w "$crd"

echo "$stamp" >"$out/stamp"
echo "build-coscheduling: built $binary in $((SECONDS - start)) s" >&2
