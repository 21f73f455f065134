# Sourced by scripts/real-cluster.sh for --karpenter: the autoscaler of an autoscaled GPU pool, run out of
# cluster beside the control plane as its Helm chart runs it in one: Karpenter v1.14.0 with its KWOK cloud
# provider, built by tools/karpenter/build.sh (pinned Go module). A NodeClaim Karpenter launches becomes a
# Node annotated kwok.x-k8s.io/node=fake, which the control plane's KWOK makes Ready, so nodes come and go
# for real; no cloud is called.
#   karpenter-kwok: metrics base+18, health base+19; leader election off; the admin kubeconfig.
# Its instance types (<dir>/karpenter-instance-types.json) are one GPU node, gpu-8x: 8 nvidia.com/gpu,
# 96 CPUs, 1 TiB, on demand in zone-a. Its CRDs (NodePool, NodeClaim, NodeOverlay, KWOKNodeClass) are
# applied and a KWOKNodeClass "default" made; the NodePools are the tests' (each test its own).
# Log: <dir>/karpenter.log.
# Uses real-cluster.sh's say, spawn, wait_until, $kubectl, $dir and $base.

karpenter_dir="$repo/.tools/karpenter"

start_karpenter() {
  local k=("$kubectl" --kubeconfig "$dir/kubeconfig") health=$((base + 19))
  "${k[@]}" apply --server-side -f "$karpenter_dir/crd.yaml" >/dev/null
  # Right after the apply the CRDs may have no status yet, which kubectl wait takes for an error: poll.
  wait_until 60 "Karpenter's CRDs" "${k[@]}" wait --for condition=Established --timeout 5s -f "$karpenter_dir/crd.yaml"
  "${k[@]}" apply --server-side -f - >/dev/null <<'YAML'
apiVersion: karpenter.kwok.sh/v1alpha1
kind: KWOKNodeClass
metadata:
  name: default
YAML
  cat >"$dir/karpenter-instance-types.json" <<'JSON'
[
  {
    "name": "gpu-8x",
    "offerings": [
      {"Price": 32.77, "Available": true,
       "Requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a"]}]}
    ],
    "architecture": "amd64",
    "operatingSystems": ["linux"],
    "resources": {"cpu": "96", "memory": "1Ti", "ephemeral-storage": "2Ti", "pods": "110", "nvidia.com/gpu": "8"}
  }
]
JSON
  KUBECONFIG="$dir/kubeconfig" DISABLE_LEADER_ELECTION=true METRICS_PORT=$((base + 18)) HEALTH_PROBE_PORT=$health \
    INSTANCE_TYPES_FILE_PATH="$dir/karpenter-instance-types.json" LOG_LEVEL=debug \
    spawn karpenter "$karpenter_dir/bin/karpenter-kwok"
  wait_until 60 karpenter curl -sf "http://127.0.0.1:$health/readyz"
}
