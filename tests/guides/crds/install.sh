#!/usr/bin/env bash
# Applies the CustomResourceDefinitions of the peer projects the guides submit to (PyTorchJob, JobSet, RayJob
# and the RayCluster it makes) to the cluster KUBECONFIG names, from the module versions pinned by go.mod and
# go.sum beside this script, and waits until the API server serves them. No controller of theirs runs: the
# CRDs make `kubectl apply` of such a job a real check against the project's schema.
# Exit codes: 0 installed; 3 Go is not installed (the caller skips, as for the Kubernetes binaries); anything
# else a failure (a module that cannot be downloaded or does not match go.sum, a CRD the server refuses).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/go-tools.sh
source "$here/../../../scripts/go-tools.sh"
require_go guides/crds "the pinned CRDs cannot be fetched"
# go.sum as written: a module whose content differs from the pin fails.
export GOFLAGS=-mod=readonly

# module path, then the CRD files inside the module.
crds=(
  "github.com/kubeflow/training-operator manifests/base/crds/kubeflow.org_pytorchjobs.yaml"
  "sigs.k8s.io/jobset config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml"
  "github.com/ray-project/kuberay/ray-operator config/crd/bases/ray.io_rayclusters.yaml config/crd/bases/ray.io_rayjobs.yaml"
)
files=()
for entry in "${crds[@]}"; do
  read -r module paths <<<"$entry"
  dir="$(cd "$here" && go mod download "$module" && go list -m -f '{{.Dir}}' "$module")"
  for p in $paths; do files+=(-f "$dir/$p"); done
done
# Server-side: the RayJob CRD (1.3 MB) is too large for client-side apply's last-applied annotation.
kubectl apply --server-side --force-conflicts "${files[@]}" >/dev/null
kubectl wait --for=condition=Established --timeout=60s \
  crd/pytorchjobs.kubeflow.org crd/jobsets.jobset.x-k8s.io crd/rayclusters.ray.io crd/rayjobs.ray.io >/dev/null
