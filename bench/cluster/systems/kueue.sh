# Kueue v0.17.0 (kueue.md here) in front of the stock kube-scheduler: Kueue's pod integration gates every
# pod of namespace bench, admits a pod group whole against a ClusterQueue's quota with topology-aware
# scheduling, and ungates its pods with the nodes it chose; the stock kube-scheduler (default profile)
# binds them. kueue-manager runs out of cluster with the admin kubeconfig; its webhooks are registered
# with loopback URLs (sourced by bench/cluster/run.sh; README.md here).
cluster_flags=(--no-gangplank)

system_build() {
  "$repo/tools/peers/kueue/build.sh"
}

# kueue_cert <dir> <name> <subjectAltName>: a serving key and certificate for 127.0.0.1 signed by the
# control plane's CA, as scripts/real-cluster.sh makes its own (<dir>/kueue-certs/<name>/tls.{crt,key}).
kueue_cert() {
  local dir="$1" name="$2" san="$3" pki="$1/pki" to="$1/kueue-certs/$2"
  mkdir -p "$to"
  openssl req -newkey rsa:2048 -nodes -keyout "$to/tls.key" -subj "/CN=kueue-$name" -out "$to/tls.csr" 2>/dev/null
  printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth" "subjectAltName=$san" >"$to/tls.ext"
  openssl x509 -req -in "$to/tls.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 30 \
    -extfile "$to/tls.ext" -out "$to/tls.crt" 2>/dev/null
  rm -f "$to/tls.csr" "$to/tls.ext"
}

system_start() {
  local dir="$1"
  local peer="$repo/.tools/peers/kueue" binary="$repo/.tools/peers/bin/kueue-manager"
  local hook_port=$((base + 9)) health_port=$((base + 10)) metrics_port=$((base + 11))
  local k=("$kubectl" --kubeconfig "$dir/kubeconfig")
  local ca_bundle
  ca_bundle="$(base64 -w0 "$dir/pki/ca.crt")"

  # Kueue's CRDs, with the conversion webhook its kustomization patches in (config/components/crd) pointed
  # at the manager on loopback. Server-side: the Workload CRD is larger than client-side apply's annotation.
  "${k[@]}" create --dry-run=client -o json -f "$peer/crd" | HOOK="https://127.0.0.1:$hook_port" CA="$ca_bundle" python3 -c '
import json, os, sys
text, objs, i, dec = sys.stdin.read(), [], 0, json.JSONDecoder()
while text[i:].strip():  # kubectl prints one JSON document per object
  o, i = dec.raw_decode(text, len(text) - len(text[i:].lstrip()))
  objs += o["items"] if o.get("kind") == "List" else [o]
converted = {"clusterqueues", "cohorts", "localqueues", "workloads", "multikueueclusters"}
for o in objs:
  if o["spec"]["names"]["plural"] in converted:
    o["spec"]["conversion"] = {"strategy": "Webhook", "webhook": {
        "clientConfig": {"url": os.environ["HOOK"] + "/convert", "caBundle": os.environ["CA"]},
        "conversionReviewVersions": ["v1"]}}
json.dump({"apiVersion": "v1", "kind": "List", "items": objs}, sys.stdout)
' >"$dir/kueue-crds.json"
  "${k[@]}" apply --server-side -f "$dir/kueue-crds.json" >/dev/null
  "${k[@]}" wait --for condition=Established --timeout 60s -f "$dir/kueue-crds.json" >/dev/null

  # The stock kube-scheduler, default profile: the kube-scheduler system's own system_start, in a subshell so
  # that its definitions do not replace these.
  (source "$here/systems/kube-scheduler.sh" && system_start "$dir")

  # kueue-manager: Kueue's own controller_manager_config.yaml (config/components/manager) with the
  # benchmark's client rate limit, leader election off, certificates from the control plane's CA, every
  # server on loopback, the pod integration only, for namespace bench.
  rm -rf "$dir/kueue-certs"
  kueue_cert "$dir" webhook "IP:127.0.0.1"
  kueue_cert "$dir" metrics "IP:127.0.0.1"
  cat >"$dir/kueue-config.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
health:
  healthProbeBindAddress: 127.0.0.1:$health_port
metrics:
  bindAddress: 127.0.0.1:$metrics_port
webhook:
  host: 127.0.0.1
  port: $hook_port
  certDir: $dir/kueue-certs/webhook
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
controller:
  groupKindConcurrency:
    Job.batch: 5
    Pod: 5
    Workload.kueue.x-k8s.io: 5
    LocalQueue.kueue.x-k8s.io: 1
    Cohort.kueue.x-k8s.io: 1
    ClusterQueue.kueue.x-k8s.io: 1
    ResourceFlavor.kueue.x-k8s.io: 1
clientConnection:
  qps: $qps
  burst: $burst
manageJobsWithoutQueueName: false
managedJobsNamespaceSelector:
  matchLabels:
    kubernetes.io/metadata.name: bench
integrations:
  frameworks:
  - pod
featureGates:
  TopologyAwareScheduling: true
  # The on-demand visibility API server (an aggregated API nobody registers here) would bind 0.0.0.0:8082.
  VisibilityOnDemand: false
YAML

  # With internal certificate management off, Kueue v0.17.0 reads its metrics serving certificate from the
  # fixed path /etc/kueue/metrics/certs (cmd/kueue/main.go) and exits without it. The manager gets a
  # private mount namespace in which /etc is an overlay holding that folder; the real /etc is untouched.
  # unshare and sh exec, so the pid is kueue-manager's.
  mkdir -p "$dir/kueue-etc"
  KUBECONFIG="$dir/kubeconfig" unshare --mount --propagation private sh -c '
    set -e
    mount -t tmpfs tmpfs "$1/kueue-etc"
    mkdir -p "$1/kueue-etc/upper/kueue/metrics/certs" "$1/kueue-etc/work"
    cp "$1/kueue-certs/metrics/tls.crt" "$1/kueue-certs/metrics/tls.key" "$1/kueue-etc/upper/kueue/metrics/certs/"
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/kueue-etc/upper,workdir=$1/kueue-etc/work" /etc
    exec "$2" --config "$1/kueue-config.yaml"' kueue-manager "$dir" "$binary" >"$dir/kueue-manager.log" 2>&1 &
  local pid=$!
  echo "$pid kueue-manager" >>"$dir/pids"

  # Kueue's webhook configurations (config/components/webhook/manifests.yaml): only those of the pod
  # integration and of Kueue's own objects (the other frameworks are off, their handlers absent), each
  # pointed at the manager on loopback; the pod webhooks for namespace bench only.
  "${k[@]}" create --dry-run=client -o json -f "$peer/webhook-manifests.yaml" | HOOK="https://127.0.0.1:$hook_port" CA="$ca_bundle" python3 -c '
import json, os, sys
text, objs, i, dec = sys.stdin.read(), [], 0, json.JSONDecoder()
while text[i:].strip():  # kubectl prints one JSON document per object
  o, i = dec.raw_decode(text, len(text) - len(text[i:].lstrip()))
  objs += o["items"] if o.get("kind") == "List" else [o]
for o in objs:
  o["metadata"]["name"] = "kueue-" + o["metadata"]["name"]
  kept = []
  for w in o["webhooks"]:
    path = w["clientConfig"]["service"]["path"]
    if path.endswith("--v1-pod"):
      w["namespaceSelector"] = {"matchLabels": {"kubernetes.io/metadata.name": "bench"}}
    elif "-kueue-x-k8s-io-" not in path:
      continue
    w["clientConfig"] = {"url": os.environ["HOOK"] + path, "caBundle": os.environ["CA"]}
    kept.append(w)
  o["webhooks"] = kept
json.dump({"apiVersion": "v1", "kind": "List", "items": objs}, sys.stdout)
' >"$dir/kueue-webhooks.json"

  local ready=0
  for _ in $(seq 600); do
    kill -0 "$pid" 2>/dev/null || break
    if curl -sf "http://127.0.0.1:$health_port/readyz" >/dev/null 2>&1 &&
       curl -s --cacert "$dir/pki/ca.crt" -o /dev/null "https://127.0.0.1:$hook_port/readyz" 2>/dev/null; then
      ready=1
      break
    fi
    sleep 0.2
  done
  if [ $ready = 0 ]; then
    say "kueue-manager did not come up; $dir/kueue-manager.log"
    tail -20 "$dir/kueue-manager.log" >&2
    return 1
  fi
  "${k[@]}" apply --server-side -f "$dir/kueue-webhooks.json" >/dev/null
  say "kueue-manager ready (webhook :$hook_port, health :$health_port, metrics :$metrics_port)"
}
