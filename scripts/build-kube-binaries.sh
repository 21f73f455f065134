#!/usr/bin/env bash
# Builds the real Kubernetes control plane the real-cluster tests run, from source, with Go:
#   etcd, kube-apiserver, kube-controller-manager, kube-scheduler (Kubernetes 1.37) and KWOK (fake nodes
#   and pod lifecycle), into <repo>/.tools/kube/bin, plus .tools/kube/kwok.yaml (KWOK's stages, taken
#   from the pinned KWOK module); and kube-apiserver, kube-controller-manager and kube-scheduler of the
#   oldest Kubernetes gangplank supports (1.35) into .tools/kube/v1.35/bin, which the end-to-end suite
#   also runs on (with the same etcd and KWOK). Also gangplank-dra-driver (tests/support/dra-driver, a
#   module of the project's own), the DRA test driver that publishes ResourceSlices for KWOK nodes.
# Versions are pinned by the go.mod/go.sum files under tools/kube-binaries/ (one module per component,
# since their dependency graphs disagree). A stamp (.tools/kube/stamp) records what was built: a second
# run with the same pins and the same Go does nothing.
# Exit codes: 0 built or already current; 3 Go is not installed (the caller decides whether that skips
# or fails the real-cluster tests); anything else is a build failure.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pins="$repo/tools/kube-binaries"
out="$repo/.tools/kube"
bin="$out/bin"
binaries=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok gangplank-dra-driver)
dra_driver="$repo/tests/support/dra-driver"
oldest=v1.35
oldest_bin="$out/$oldest/bin"
oldest_binaries=(kube-apiserver kube-controller-manager kube-scheduler)

# shellcheck source=scripts/go-tools.sh
source "$repo/scripts/go-tools.sh"
require_go build-kube-binaries "the real Kubernetes components cannot be built"  # the pins need go >= 1.26.0
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

stamp="$({ go version; cat "$pins"/*/go.mod "$pins"/*/go.sum "$dra_driver"/go.mod "$dra_driver"/go.sum "$dra_driver"/*.go "${BASH_SOURCE[0]}" "$repo/scripts/go-tools.sh"; } | sha256sum | cut -d' ' -f1)"
current=1
for b in "${binaries[@]}"; do [ -x "$bin/$b" ] || current=0; done
for b in "${oldest_binaries[@]}"; do [ -x "$oldest_bin/$b" ] || current=0; done
[ -s "$out/kwok.yaml" ] || current=0
if [ "$current" = 1 ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi

mkdir -p "$bin" "$oldest_bin"
rm -f "$out/stamp"
# build <module folder> <output> <package>...: go build of the module's pinned packages; <output> is the
# binary's path for one package, or a folder (ending in /) for several.
build() {
  local module="$1" output="$2"
  shift 2
  echo "build-kube-binaries: building $* ($(go version | cut -d' ' -f3))" >&2
  (cd "$pins/$module" && go build -trimpath -ldflags="-s -w ${ldflags:-}" -o "$output" "$@")
}
start=$SECONDS
build etcd "$bin/etcd" go.etcd.io/etcd/server/v3
build kwok "$bin/kwok" sigs.k8s.io/kwok/cmd/kwok
# build_kubernetes <module folder> <output folder>: the control plane of one Kubernetes version, its
# version stamped at link time (go-tools.sh).
build_kubernetes() {
  local version
  version="$(cd "$pins/$1" && go list -m -f '{{.Version}}' k8s.io/kubernetes)"
  ldflags="$(kube_version_ldflags "$version")" build "$1" "$2/" k8s.io/kubernetes/cmd/kube-apiserver \
    k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler
}
build_kubernetes kubernetes "$bin"
build_kubernetes "kubernetes-${oldest#v}" "$oldest_bin"
echo "build-kube-binaries: building gangplank-dra-driver ($(go version | cut -d' ' -f3))" >&2
(cd "$dra_driver" && go build -trimpath -ldflags="-s -w" -o "$bin/gangplank-dra-driver" .)

# KWOK's stages ship inside its module, not its binary: nodes become Ready and keep a heartbeat Lease
# (so the node lifecycle controller leaves them alone); pods become Running, Job pods complete, deleted
# pods go away.
kwok_dir="$(cd "$pins/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)"
{
  for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
           pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    echo "---"
    cat "$kwok_dir/kustomize/stage/$f"
  done
} >"$out/kwok.yaml"

echo "$stamp" >"$out/stamp"
echo "build-kube-binaries: built ${binaries[*]} into $bin and ${oldest_binaries[*]} into $oldest_bin in $((SECONDS - start)) s" >&2
