#!/usr/bin/env bash
# Builds the job controllers that data scientists' jobs run under, which the real-cluster job-controller
# suite (tests/real-cluster/job_controllers_test.cc) runs beside gangplank, each from the module pinned by
# the go.mod/go.sum of its folder here (one module per controller: their Kubernetes libraries differ):
#   jobset/        JobSet v0.11.0 (sigs.k8s.io/jobset)                      -> bin/jobset-manager
#   lws/           LeaderWorkerSet v0.7.0 (sigs.k8s.io/lws/cmd)             -> bin/lws-manager
#   kuberay/       KubeRay v1.5.0 (github.com/ray-project/kuberay/ray-operator) -> bin/kuberay-manager
#   mpi-operator/  MPI operator v0.6.0, MPIJob v2beta1 (github.com/kubeflow/mpi-operator/cmd/mpi-operator)
#                                                                           -> bin/mpi-operator-manager
#   training-operator/  Kubeflow's training operator v1.8.1, PyTorchJob only
#                  (github.com/kubeflow/training-operator/cmd/training-operator.v1) -> bin/training-operator-manager
# (bin/ under .tools/job-controllers/) and copies each module's CRDs and webhook configurations (what its
# kustomize install applies; KubeRay's and the MPI operator's have none by default) to
# .tools/job-controllers/<name>/{crd.yaml,webhooks.yaml}; scripts/real-cluster.sh --job-controllers
# registers them, pointed at the managers on loopback. Of the training operator's CRDs only PyTorchJob's:
# its MPIJob (kubeflow.org/v1) has the name of the MPI operator's (v2beta1).
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
controllers=(jobset lws kuberay mpi-operator training-operator)
for c in "${controllers[@]}"; do
  [ -x "$bin/$c-manager" ] && [ -s "$out/$c/crd.yaml" ] && [ -f "$out/$c/webhooks.yaml" ] || current=0
done
if [ "$current" = 1 ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi

mkdir -p "$bin"
rm -f "$out/stamp"
start=$SECONDS
# controller <name> <module> <package> <crd folder or file> <webhook manifests, or "-" for none>: the
# manager and its manifests.
controller() {
  local name="$1" module="$2" package="$3" crds="$4" hooks="$5" dir
  echo "build-job-controllers: building $package $(cd "$pins/$name" && go list -m -f '{{.Version}}' "$module") ($(go version | cut -d' ' -f3))" >&2
  (cd "$pins/$name" && go build -p "${BUILD_JOBS:-2}" -trimpath -ldflags="-s -w" -o "$bin/$name-manager" "$package")
  dir="$(cd "$pins/$name" && go list -m -f '{{.Dir}}' "$module")"
  mkdir -p "$out/$name"
  if [ -d "$dir/$crds" ]; then
    for f in "$dir/$crds"/*.yaml; do echo "---"; cat "$f"; done >"$out/$name/crd.yaml"
  else
    cat "$dir/$crds" >"$out/$name/crd.yaml"
  fi
  if [ "$hooks" = - ]; then : >"$out/$name/webhooks.yaml"; else cat "$dir/$hooks" >"$out/$name/webhooks.yaml"; fi
}
controller jobset sigs.k8s.io/jobset sigs.k8s.io/jobset config/components/crd/bases config/components/webhook/manifests.yaml
controller lws sigs.k8s.io/lws sigs.k8s.io/lws/cmd config/crd/bases config/webhook/manifests.yaml
controller kuberay github.com/ray-project/kuberay/ray-operator github.com/ray-project/kuberay/ray-operator config/crd/bases -
controller mpi-operator github.com/kubeflow/mpi-operator github.com/kubeflow/mpi-operator/cmd/mpi-operator \
  manifests/base/kubeflow.org_mpijobs.yaml -
controller training-operator github.com/kubeflow/training-operator github.com/kubeflow/training-operator/cmd/training-operator.v1 \
  manifests/base/crds/kubeflow.org_pytorchjobs.yaml -

echo "$stamp" >"$out/stamp"
echo "build-job-controllers: built ${controllers[*]} into $bin in $((SECONDS - start)) s" >&2
