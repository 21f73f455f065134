#!/usr/bin/env bash
# Renders manifests/ from the Helm chart, for clusters installed with `kubectl apply` instead of Helm, and
# copies crds/ into the chart (crds/ is the one source of the CRDs; the chart carries a copy because Helm
# installs a chart's crds/ folder first). The plain manifests use cert-manager for the webhook's and the
# extender's certificates (the chart's self-signed mode would put a private key into the repository).
#   scripts/render-manifests.sh            rewrite helm/gangplank/crds/ and manifests/
#   scripts/render-manifests.sh --out DIR  write the manifests into DIR only (the tests compare it)
#   HELM=/path/to/helm                     another Helm 3 binary (default: .tools/bin/helm)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
helm="${HELM:-$repo/.tools/bin/helm}"
out="$repo/manifests"
sync_crds=1
if [ "${1:-}" = "--out" ]; then
  out="${2:?--out needs a folder}"
  sync_crds=0
fi
if [ ! -x "$helm" ]; then
  echo "render-manifests: no Helm at $helm (scripts/install-kube-tools.sh installs it)" >&2
  exit 1
fi

if [ "$sync_crds" = 1 ]; then
  rm -f "$repo"/helm/gangplank/crds/*.yaml
  cp "$repo"/crds/*.yaml "$repo/helm/gangplank/crds/"
fi

namespace=gangplank-system
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Helm keeps caches under HOME: give it its own.
HOME="$work" HELM_CACHE_HOME="$work/cache" HELM_CONFIG_HOME="$work/config" HELM_DATA_HOME="$work/data" \
  "$helm" template gangplank "$repo/helm/gangplank" --namespace "$namespace" --include-crds \
  --set certificates.mode=certManager --set planSeal.existingSecret=gangplank-plan-seal >"$work/rendered.yaml"

{
  echo "# gangplank, rendered from helm/gangplank by scripts/render-manifests.sh: do not edit; edit the chart."
  echo "# Needs cert-manager (https://cert-manager.io) for the webhook's and the extender's certificates."
  echo "# And the key that seals admission plans, made once (a random key, never committed):"
  echo "#   kubectl create namespace $namespace"
  echo "#   kubectl -n $namespace create secret generic gangplank-plan-seal --from-literal=key=\"\$(openssl rand -hex 32)\""
  echo "#   kubectl apply -f manifests/gangplank.yaml"
  echo "---"
  echo "apiVersion: v1"
  echo "kind: Namespace"
  echo "metadata:"
  echo "  name: $namespace"
  echo "  labels:"
  echo "    app.kubernetes.io/part-of: gangplank"
  cat "$work/rendered.yaml"
} >"$out/gangplank.yaml"
echo "render-manifests: wrote $out/gangplank.yaml" >&2
