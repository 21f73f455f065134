#!/usr/bin/env bash
# Builds the job controllers that data scientists' jobs run under, which the real-cluster job-controller
# suite (tests/real-cluster/job_controllers_test.cc) runs beside gangplank, each from the module pinned by
# the go.mod/go.sum of its folder here (one module per controller: their Kubernetes libraries differ):
#   jobset/  JobSet's controller manager (sigs.k8s.io/jobset)      -> .tools/job-controllers/bin/jobset-manager
#   lws/     LeaderWorkerSet's controller manager (sigs.k8s.io/lws) -> .tools/job-controllers/bin/lws-manager
# and copies each module's CRDs and webhook configurations (what its kustomize install applies) to
# .tools/job-controllers/<name>/{crd.yaml,webhooks.yaml}; scripts/real-cluster.sh --job-controllers
# registers them, pointed at the managers on loopback.
# A stamp (.tools/job-controllers/stamp) records what was built: a second run with the same pins and the
# same Go does nothing.
# Exit codes: 0 built or already current; 3 Go is not installed; anything else is a build failure.
set -euo pipefail

pins="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$pins/../.." && pwd)"
out="$repo/.tools/job-controllers"
bin="$out/bin"

# shellcheck source=scripts/go-tools.sh
source "$repo/scripts/go-tools.sh"
require_go build-job-controllers "the job controllers cannot be built"  # JobSet v0.11.0 needs go >= 1.25.0
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

stamp="$({ go version; cat "$pins"/*/go.mod "$pins"/*/go.sum "${BASH_SOURCE[0]}" "$repo/scripts/go-tools.sh"; } | sha256sum | cut -d' ' -f1)"
current=1
for c in jobset lws; do
  [ -x "$bin/$c-manager" ] && [ -s "$out/$c/crd.yaml" ] && [ -s "$out/$c/webhooks.yaml" ] || current=0
done
if [ "$current" = 1 ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi

mkdir -p "$bin"
rm -f "$out/stamp"
start=$SECONDS
# controller <name> <module> <package> <crd folder> <webhook manifests>: the manager and its manifests.
controller() {
  local name="$1" module="$2" package="$3" crds="$4" hooks="$5" dir
  echo "build-job-controllers: building $package $(cd "$pins/$name" && go list -m -f '{{.Version}}' "$module") ($(go version | cut -d' ' -f3))" >&2
  (cd "$pins/$name" && go build -p "${BUILD_JOBS:-2}" -trimpath -ldflags="-s -w" -o "$bin/$name-manager" "$package")
  dir="$(cd "$pins/$name" && go list -m -f '{{.Dir}}' "$module")"
  mkdir -p "$out/$name"
  for f in "$dir/$crds"/*.yaml; do echo "---"; cat "$f"; done >"$out/$name/crd.yaml"
  cat "$dir/$hooks" >"$out/$name/webhooks.yaml"
}
controller jobset sigs.k8s.io/jobset sigs.k8s.io/jobset config/components/crd/bases config/components/webhook/manifests.yaml
controller lws sigs.k8s.io/lws sigs.k8s.io/lws/cmd config/crd/bases config/webhook/manifests.yaml

echo "$stamp" >"$out/stamp"
echo "build-job-controllers: built jobset-manager and lws-manager into $bin in $((SECONDS - start)) s" >&2
