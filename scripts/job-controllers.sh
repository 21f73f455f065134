# Sourced by scripts/real-cluster.sh for --job-controllers: the controllers that make the pods of the jobs
# data scientists submit, run out of cluster beside the control plane as their own releases install them,
# from the binaries tools/job-controllers/build.sh builds (pinned Go modules):
#   JobSet v0.11.0           jobset-manager:       webhook base+11, health base+12
#   LeaderWorkerSet v0.7.0   lws-manager:          webhook base+13, health base+14
#   KubeRay v1.5.0           kuberay-manager:      health base+15 (its webhooks are off by default)
#   MPI operator v0.6.0      mpi-operator-manager: its health server on :8080, which it does not let
#                            be moved (cmd/mpi-operator/app/server.go), so one control plane at a time
#                            runs it; leader election in namespace mpi-operator, which it cannot turn off
#   training operator v1.8.1 training-operator-manager: PyTorchJob only; health base+16, webhook base+17.
#                            It makes its own webhook certificates (pkg/cert) into a Secret of its namespace
#                            (kubeflow) and waits until they are in its fixed certificate folder, where a
#                            kubelet would mount the Secret: it runs in a mount namespace of its own with a
#                            tmpfs there, and the script copies them in (through /proc/<pid>/root). Its
#                            validating webhook configuration is registered for nothing (the certificates'
#                            name is an in-cluster Service's), only so its certificate rotation finds it.
# JobSet and LeaderWorkerSet get their CRDs, their manager configuration (leader election off, the webhook
# on loopback with a certificate from the cluster CA instead of their in-cluster certificate rotation,
# metrics off) and their webhook configurations pointed at the manager on loopback, with the pod
# webhooks' object selectors of the controller's own kustomize patches. All run with the admin
# kubeconfig: what is tested is how their pods meet gangplank, not their RBAC.
# Logs: <dir>/<name>-manager.log.
# Uses real-cluster.sh's say, spawn, wait_until, cert, $kubectl, $dir, $pki and $base.

job_controllers_dir="$repo/.tools/job-controllers"

# job_controller_webhooks <manifests> <port> <prefix> <pod label>: the controller's webhook configurations
# as JSON, each webhook calling https://127.0.0.1:<port><path>, renamed <prefix>-<name>, its pod webhooks
# only for pods that carry <pod label>.
job_controller_webhooks() {
  "$kubectl" --kubeconfig "$dir/kubeconfig" create --dry-run=client -o json -f "$1" | HOOK="https://127.0.0.1:$2" PREFIX="$3" LABEL="$4" \
    CA="$(base64 -w0 "$pki/ca.crt")" python3 -c '
import json, os, sys
text, objs, i, dec = sys.stdin.read(), [], 0, json.JSONDecoder()
while text[i:].strip():  # kubectl prints one JSON document per object
  o, i = dec.raw_decode(text, len(text) - len(text[i:].lstrip()))
  objs += o["items"] if o.get("kind") == "List" else [o]
for o in objs:
  o["metadata"]["name"] = os.environ["PREFIX"] + "-" + o["metadata"]["name"]
  for w in o["webhooks"]:
    w["clientConfig"] = {"url": os.environ["HOOK"] + w["clientConfig"]["service"]["path"], "caBundle": os.environ["CA"]}
    if "pods" in w["rules"][0]["resources"]:
      w["objectSelector"] = {"matchExpressions": [{"key": os.environ["LABEL"], "operator": "Exists"}]}
json.dump({"apiVersion": "v1", "kind": "List", "items": objs}, sys.stdout)
'
}

# start_job_controller <name> <webhook port> <health port> <config apiVersion> <pod label>
start_job_controller() {
  local name="$1" hook_port="$2" health_port="$3" api="$4" label="$5"
  local from="$job_controllers_dir/$name" certs="$dir/$name-certs"
  local k=("$kubectl" --kubeconfig "$dir/kubeconfig")
  apply_job_controller_crds "$name"
  cert "$name-webhook" "/CN=$name-webhook" "IP:127.0.0.1"
  mkdir -p "$certs"
  cp "$pki/$name-webhook.crt" "$certs/tls.crt"
  cp "$pki/$name-webhook.key" "$certs/tls.key"
  cat >"$dir/$name-config.yaml" <<YAML
apiVersion: $api
kind: Configuration
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: 127.0.0.1
  port: $hook_port
  certDir: $certs
health:
  healthProbeBindAddress: 127.0.0.1:$health_port
metrics:
  bindAddress: "0"
YAML
  KUBECONFIG="$dir/kubeconfig" spawn "$name-manager" "$job_controllers_dir/bin/$name-manager" \
    --config "$dir/$name-config.yaml" --metrics-bind-address 0 --health-probe-bind-address "127.0.0.1:$health_port"
  wait_until 60 "$name-manager" curl -sf "http://127.0.0.1:$health_port/readyz"
  wait_until 60 "$name-manager's webhook" curl -s --cacert "$pki/ca.crt" -o /dev/null "https://127.0.0.1:$hook_port/"
  job_controller_webhooks "$from/webhooks.yaml" "$hook_port" "$name" "$label" >"$dir/$name-webhooks.json"
  "${k[@]}" apply --server-side -f "$dir/$name-webhooks.json" >/dev/null
}

# apply_job_controller_crds <name>: the controller's CRDs, established.
apply_job_controller_crds() {
  local k=("$kubectl" --kubeconfig "$dir/kubeconfig") from="$job_controllers_dir/$1"
  "${k[@]}" apply --server-side -f "$from/crd.yaml" >/dev/null
  # Right after the apply the CRD may have no status yet, which kubectl wait takes for an error: poll it.
  wait_until 60 "$1's CRDs" "${k[@]}" wait --for condition=Established --timeout 5s -f "$from/crd.yaml"
}

# start_job_controllers <names>: the controllers named (comma-separated), each as its release runs it.
start_job_controllers() {
  local c
  for c in ${1//,/ }; do
    case "$c" in
      jobset) start_job_controller jobset $((base + 11)) $((base + 12)) config.jobset.x-k8s.io/v1alpha1 jobset.sigs.k8s.io/jobset-name ;;
      lws) start_job_controller lws $((base + 13)) $((base + 14)) config.lws.x-k8s.io/v1alpha1 leaderworkerset.sigs.k8s.io/name ;;
      kuberay) start_kuberay $((base + 15)) ;;
      mpi-operator) start_mpi_operator ;;
      training-operator) start_training_operator $((base + 16)) $((base + 17)) ;;
    esac
  done
}

start_kuberay() {
  apply_job_controller_crds kuberay
  KUBECONFIG="$dir/kubeconfig" spawn kuberay-manager "$job_controllers_dir/bin/kuberay-manager" \
    --metrics-addr 0 --health-probe-bind-address "127.0.0.1:$1" --enable-leader-election=false
  wait_until 60 kuberay-manager curl -sf "http://127.0.0.1:$1/readyz"
}

start_mpi_operator() {
  apply_job_controller_crds mpi-operator
  "$kubectl" --kubeconfig "$dir/kubeconfig" create namespace mpi-operator >/dev/null
  spawn mpi-operator-manager "$job_controllers_dir/bin/mpi-operator-manager" --kubeConfig "$dir/kubeconfig" \
    --lock-namespace mpi-operator --kube-api-qps 50 --kube-api-burst 100
  wait_until 60 mpi-operator-manager curl -sf "http://127.0.0.1:8080/healthz"
}

# training_operator_certs_copied <pid>: the certificates its rotation wrote to its Secret are in its folder.
training_operator_certs_copied() {
  local to="/proc/$1/root/tmp/k8s-webhook-server/serving-certs" key
  for key in ca.crt tls.crt tls.key; do
    "$kubectl" --kubeconfig "$dir/kubeconfig" get secret -n kubeflow training-operator-webhook-cert \
      -o "jsonpath={.data.${key//./\\.}}" | base64 -d >"$to/$key.new" || return 1
    [ -s "$to/$key.new" ] || return 1
  done
  for key in ca.crt tls.crt tls.key; do mv "$to/$key.new" "$to/$key"; done
}

start_training_operator() {
  local health_port="$1" hook_port="$2" k=("$kubectl" --kubeconfig "$dir/kubeconfig")
  apply_job_controller_crds training-operator
  "${k[@]}" create namespace kubeflow >/dev/null
  "${k[@]}" create secret generic training-operator-webhook-cert -n kubeflow >/dev/null
  "${k[@]}" apply -f - >/dev/null <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validator.training-operator.kubeflow.org
webhooks:
- name: unused.training-operator.kubeflow.org
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Ignore
  clientConfig: {url: "https://127.0.0.1:$hook_port/unused"}
  rules: [{apiGroups: [gangplank.test], apiVersions: [v1], operations: [CREATE], resources: [nothing]}]
YAML
  mkdir -p /tmp/k8s-webhook-server  # The mount point only; nothing is written to it outside the namespace.
  KUBECONFIG="$dir/kubeconfig" MY_POD_NAMESPACE=kubeflow spawn training-operator-manager \
    unshare --mount --propagation private sh -c '
      mount -t tmpfs tmpfs /tmp/k8s-webhook-server && mkdir /tmp/k8s-webhook-server/serving-certs && exec "$@"' sh \
    "$job_controllers_dir/bin/training-operator-manager" --enable-scheme=pytorchjob --metrics-bind-address 0 \
    --health-probe-bind-address "127.0.0.1:$health_port" --webhook-server-port "$hook_port"
  local pid
  pid="$(tail -1 "$dir/pids" | cut -d' ' -f1)"
  wait_until 60 "training-operator-manager's certificates" training_operator_certs_copied "$pid"
  wait_until 60 training-operator-manager curl -sf "http://127.0.0.1:$health_port/readyz"
}
