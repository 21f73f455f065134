#!/usr/bin/env bash
# A real Kubernetes control plane on loopback, with gangplank installed the way the Helm chart installs
# it, for the walk-through and the real-cluster tests:
#   etcd; kube-apiserver (RBAC and Node authorization, the default admission plugins with the mutating
#   webhook, service-account tokens, certificates made with openssl); kube-controller-manager (every
#   default controller: Job, ReplicaSet, disruption, garbage collector, namespace, service accounts, node
#   lifecycle, ...); KWOK (fake nodes and pod lifecycle); the stock kube-scheduler with the
#   KubeSchedulerConfiguration the chart renders (its extender URL pointed at loopback, TLS on); and
#   gangplank-extender and gangplank-operator as processes holding the tokens of the ServiceAccounts the
#   chart creates, so the chart's RBAC is what they are allowed. The chart's CRDs, RBAC and webhook
#   registration (operator.webhook.url: the operator's loopback URL) are applied with kubectl.
#
#   scripts/real-cluster.sh start [--dir D] [--build B] [--port-base P] [--nodes FILE] [--no-gangplank]
#                                 [--operator-arg ARG]... [--extender-arg ARG]... [--chart-set KEY=VALUE]...
#                                 [--owner-pid PID] [--kube-version V] [--dra] [--default-scheduler]
#                                 [--image-root R] [--native-gangs] [--native-gang-cycle]
#                                 [--job-controllers [NAMES]] [--jobs-keep-running] [--karpenter]
#   scripts/real-cluster.sh stop [--dir D]
#
# --dir      state, certificates, kubeconfigs and logs (default out/real)
# --build    the CMake build holding gangplank's binaries (default build)
# --port-base  first of the 20 loopback ports used (default 26000): +0 etcd client, +1 etcd peer,
#            +2 kube-apiserver, +3 controller-manager, +4 scheduler, +5 extender, +6 operator,
#            +7 operator webhook, +8 KWOK, +9 the default kube-scheduler (--default-scheduler),
#            +10 the operator's dry run, +11 to +17 the job controllers (--job-controllers; the MPI
#            operator's health server takes :8080, which it does not let be moved), +18 and +19
#            Karpenter's metrics and health (--karpenter)
# --nodes    a YAML file of Nodes to create (KWOK takes those annotated kwok.x-k8s.io/node=fake);
#            may be given more than once (default: none)
# --no-gangplank  the control plane only: no chart objects, extender, operator or kube-scheduler
# --operator-arg  one more flag for gangplank-operator (e.g. --condition-rewrite-seconds=1 in tests)
# --extender-arg  one more flag for gangplank-extender (e.g. --bind-verb=bind)
# --chart-set     a chart value for the objects applied and the scheduler configuration (helm --set),
#                 e.g. extender.bindVerb=bind with --extender-arg --bind-verb=bind
# --owner-pid     stop everything once that process is gone (a test binary killed by its timeout leaves
#                 no control plane behind)
# --default-scheduler  also the stock kube-scheduler with its default profile (default-scheduler) on
#                 base+9, which a real cluster has and which schedules (and allocates the devices of) pods
#                 that do not name gangplank; the chart's scheduler has the gangplank profile only
# --image-root    run gangplank-extender and gangplank-operator from an image's root file system R (a
#                 mounted container of the image ./run.sh image builds) under chroot, as the image's user
#                 65532, instead of from --build: the state folder is bind-mounted into R at its own path
#                 (tests/real-cluster/image_test.cc)
# --kube-version  run kube-apiserver, kube-controller-manager and kube-scheduler of another Kubernetes
#                 version built by scripts/build-kube-binaries.sh (v1.35, the oldest gangplank supports:
#                 .tools/kube/v1.35/bin); default: the 1.37 of .tools/kube/bin
# --dra      GPUs through Dynamic Resource Allocation: gangplank-dra-driver (tests/support/dra-driver)
#            publishes ResourceSlices shaped like NVIDIA's driver's (gpu.nvidia.com) for the nodes labelled
#            gangplank.test/dra-gpus=<n> (gangplank.test/dra-mig=true: MIG partitions too), and creates the
#            DeviceClasses gpu.nvidia.com (extendedResourceName nvidia.com/gpu) and mig.nvidia.com. It runs
#            as the ServiceAccount gangplank-dra-driver/gangplank-dra-driver under a DRA driver's RBAC
#            (ClusterRole gangplank-dra-driver) and logs to <dir>/gangplank-dra-driver.log. Kubernetes 1.37 needs no flag
#            for this: resource.k8s.io/v1, DRAExtendedResource and DRADeviceTaints are GA, DRAPartitionableDevices
#            beta and on; DRANodeAllocatableResources (alpha, off) stays off, as DRA-backed extended
#            resources fail with it on (kubernetes#141467).
# --native-gangs  Kubernetes' own gang scheduling on: the feature gates GenericWorkload (beta, off by
#            default in 1.37) and TopologyAwareWorkloadScheduling (alpha) on kube-apiserver,
#            kube-controller-manager and kube-scheduler, and scheduling.k8s.io/v1beta1 (Workload, PodGroup)
#            served; pods then join a PodGroup by spec.schedulingGroup.podGroupName. gangplank's own
#            kube-scheduler keeps the gates off, as the chart installs it by default
# --native-gang-cycle  --native-gangs, and gangplank's kube-scheduler runs the PodGroup cycle too (its gates
#            on, the operator's --native-gang-cycle), as the chart's scheduler.nativeGangCycle=true installs it
# --job-controllers  the controllers of the jobs users submit, beside gangplank: JobSet, LeaderWorkerSet,
#            KubeRay, the MPI operator and Kubeflow's training operator (PyTorchJob), built by
#            tools/job-controllers/build.sh, with their CRDs and webhooks; or only the NAMES given
#            (comma-separated of jobset, lws, kuberay, mpi-operator, training-operator)
#            (scripts/job-controllers.sh)
# --jobs-keep-running  KWOK without its pod-complete stage: a Job's pods run until they are deleted or a
#            test marks them failed, instead of succeeding as soon as they run
# --karpenter  Karpenter with its KWOK cloud provider, the autoscaler of autoscaled GPU pools, built by
#            tools/karpenter/build.sh (scripts/karpenter.sh); NodePools are the caller's to create
#
# kubeconfig for kubectl: <dir>/kubeconfig (cluster-admin). Needs the binaries of
# scripts/build-kube-binaries.sh (in .tools/kube/bin) and kubectl and Helm from scripts/install-kube-tools.sh.
# Every address is on 127.0.0.1; Service and pod IPs are taken from loopback ranges too, so nothing the
# control plane resolves ever leaves the machine.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kube_bin="$repo/.tools/kube/bin"
tools_bin="$repo/.tools/kube/bin"  # etcd and KWOK, whatever the Kubernetes version
kubectl="$repo/.tools/bin/kubectl"
helm="$repo/.tools/bin/helm"

command="${1:-}"
[ $# -gt 0 ] && shift
dir="$repo/out/real"
build="$repo/build"
base=26000
nodes=()
gangplank=1
operator_args=()
extender_args=()
chart_sets=()
owner=""
dra=0
default_scheduler=0
image_root=""
gate_args=()
cycle_args=()
job_controllers=""
karpenter=0
kwok_stages="$repo/.tools/kube/kwok.yaml"
native_gates=(--feature-gates GenericWorkload=true,TopologyAwareWorkloadScheduling=true)
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --port-base) base="$2"; shift 2 ;;
    --nodes) nodes+=("$2"); shift 2 ;;
    --no-gangplank) gangplank=0; shift ;;
    --operator-arg) operator_args+=("$2"); shift 2 ;;
    --extender-arg) extender_args+=("$2"); shift 2 ;;
    --chart-set) chart_sets+=(--set "$2"); shift 2 ;;
    --owner-pid) owner="$2"; shift 2 ;;
    --kube-version) kube_bin="$repo/.tools/kube/$2/bin"; shift 2 ;;
    --dra) dra=1; shift ;;
    --default-scheduler) default_scheduler=1; shift ;;
    --image-root) image_root="$(cd "$2" && pwd)"; shift 2 ;;
    --native-gangs) gate_args=("${native_gates[@]}"); shift ;;
    --job-controllers)
      job_controllers=jobset,lws,kuberay,mpi-operator,training-operator
      if [ $# -gt 1 ] && [ "${2#--}" = "$2" ]; then job_controllers="$2"; shift; fi
      shift ;;
    --jobs-keep-running) kwok_stages=""; shift ;;
    --karpenter) karpenter=1; shift ;;
    --native-gang-cycle)
      gate_args=("${native_gates[@]}")
      cycle_args=("${native_gates[@]}")
      operator_args+=(--native-gang-cycle)
      shift ;;
    *) echo "real-cluster: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
pki="$dir/pki"
etcd_port=$base; etcd_peer=$((base + 1)); api_port=$((base + 2)); cm_port=$((base + 3)); sched_port=$((base + 4))
ext_port=$((base + 5)); op_port=$((base + 6)); hook_port=$((base + 7)); kwok_port=$((base + 8))
default_sched_port=$((base + 9)); dry_run_port=$((base + 10))
namespace=gangplank-system
release=gangplank

say() { echo "real-cluster: $*" >&2; }

# wait_until <seconds> <what> <command...>: polls the command every 0.2 s.
wait_until() {
  local seconds="$1" what="$2"
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      say "$what did not come up in ${seconds}s; logs in $dir"
      return 1
    fi
    sleep 0.2
  done
}

# spawn <name> <command...>: runs a component in the background, logging to <dir>/<name>.log.
spawn() {
  local name="$1"
  shift
  "$@" >"$dir/$name.log" 2>&1 &
  echo "$! $name" >>"$dir/pids"
}

stop_all() {
  [ -f "$dir/pids" ] || return 0
  # Last started first, so gangplank and the controllers leave before the API server and etcd.
  local pids
  pids="$(tac "$dir/pids" | cut -d' ' -f1)"
  for pid in $pids; do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 100); do
    local alive=0
    for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for pid in $pids; do kill -9 "$pid" 2>/dev/null || true; done
  rm -f "$dir/pids"
  if [ -f "$dir/image-mount" ]; then
    umount "$(cat "$dir/image-mount")" 2>/dev/null || umount -l "$(cat "$dir/image-mount")" 2>/dev/null || true
    rm -f "$dir/image-mount"
  fi
}

# gangplank_binary <name> <folder>: sets `binary` to the command that runs one of gangplank's binaries,
# from the build or, with --image-root, from the image as its own user (the state folder mounted in:
# make_image_view). An array, so a build folder with spaces stays one word.
gangplank_binary() {
  if [ -n "$image_root" ]; then
    binary=(chroot --userspec=65532:65532 "$image_root" "/usr/local/bin/$1")
  else
    binary=("$build/$2/$1")
  fi
}

# The image's view of the state folder: the same path inside it, and the files its user must read.
make_image_view() {
  [ -n "$image_root" ] || return 0
  mkdir -p "$image_root$dir"
  mount --bind "$dir" "$image_root$dir"
  echo "$image_root$dir" >"$dir/image-mount"
  chown -R 65532:65532 "$pki" "$dir/extender.kubeconfig" "$dir/operator.kubeconfig"
  chmod o+x "$dir"  # A test's folder is mkdtemp's 0700: the image's user may pass through it, not list it.
}

# cert <name> <subject> [subjectAltName] [ca]: a key and a certificate signed by the cluster CA (or <ca>).
cert() {
  local name="$1" subject="$2" san="${3:-}" ca="${4:-ca}"
  openssl req -newkey rsa:2048 -nodes -keyout "$pki/$name.key" -subj "$subject" -out "$pki/$name.csr" 2>/dev/null
  local ext="$pki/$name.ext"
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    if [ -n "$san" ]; then
      echo "extendedKeyUsage=serverAuth,clientAuth"
      echo "subjectAltName=$san"
    else
      echo "extendedKeyUsage=clientAuth"
    fi
  } >"$ext"
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/$ca.crt" -CAkey "$pki/$ca.key" -CAcreateserial -days 30 \
    -extfile "$ext" -out "$pki/$name.crt" 2>/dev/null
  rm -f "$pki/$name.csr" "$ext"
}

make_pki() {
  mkdir -p "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=gangplank-test-ca" -keyout "$pki/ca.key" \
    -out "$pki/ca.crt" 2>/dev/null
  cert apiserver "/CN=kube-apiserver" \
    "IP:127.0.0.1,IP:127.0.96.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
  cert admin "/O=system:masters/CN=admin"
  cert controller-manager "/CN=system:kube-controller-manager"
  cert kwok "/O=system:masters/CN=kwok"
  # Serving certificates of gangplank's two endpoints, also valid for the names the chart gives them.
  cert extender "/CN=gangplank-extender" "IP:127.0.0.1,DNS:$release-extender.$namespace.svc"
  cert webhook "/CN=gangplank-operator" "IP:127.0.0.1,DNS:$release-operator.$namespace.svc"
  # kube-scheduler's client certificate for the extender's mutual TLS, from a CA of its own as the chart's
  # is: the extender accepts no other certificate, not even the cluster CA's (admin, kwok).
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=gangplank-extender-client-ca" \
    -keyout "$pki/extender-client-ca.key" -out "$pki/extender-client-ca.crt" 2>/dev/null
  cert scheduler-client "/CN=gangplank-scheduler" "" extender-client-ca
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

# kubeconfig <file> <user flags...>: a kubeconfig for the API server on loopback.
kubeconfig() {
  local file="$1"
  shift
  "$kubectl" config --kubeconfig "$file" set-cluster real --server "https://127.0.0.1:$api_port" \
    --certificate-authority "$pki/ca.crt" --embed-certs >/dev/null
  "$kubectl" config --kubeconfig "$file" set-credentials user "$@" >/dev/null
  "$kubectl" config --kubeconfig "$file" set-context real --cluster real --user user >/dev/null
  "$kubectl" config --kubeconfig "$file" use-context real >/dev/null
}

start_control_plane() {
  spawn etcd "$tools_bin/etcd" --name real --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "real=http://127.0.0.1:$etcd_peer" --unsafe-no-fsync --log-level warn
  wait_until 60 etcd curl -sf "http://127.0.0.1:$etcd_port/health"

  spawn kube-apiserver "$kube_bin/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
    --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --client-ca-file "$pki/ca.crt" \
    --authorization-mode Node,RBAC \
    --enable-admission-plugins NodeRestriction \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
    --service-cluster-ip-range 127.0.96.0/24 \
    --allow-privileged=true --endpoint-reconciler-type none --v 1 \
    ${gate_args[@]+"${gate_args[@]}"} ${gate_args[@]+--runtime-config scheduling.k8s.io/v1beta1=true}
  kubeconfig "$dir/kubeconfig" --client-certificate "$pki/admin.crt" --client-key "$pki/admin.key" --embed-certs
  wait_until 120 kube-apiserver "$kubectl" --kubeconfig "$dir/kubeconfig" get --raw /readyz

  kubeconfig "$dir/controller-manager.kubeconfig" --client-certificate "$pki/controller-manager.crt" \
    --client-key "$pki/controller-manager.key" --embed-certs
  spawn kube-controller-manager "$kube_bin/kube-controller-manager" \
    --kubeconfig "$dir/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$dir/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$dir/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$cm_port" \
    --use-service-account-credentials --service-account-private-key-file "$pki/sa.key" \
    --root-ca-file "$pki/ca.crt" --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" \
    --leader-elect=false --node-monitor-grace-period 40s --v 1 ${gate_args[@]+"${gate_args[@]}"}
  # Pods need their namespace's default ServiceAccount, which the controller manager creates.
  wait_until 60 "the default ServiceAccount" "$kubectl" --kubeconfig "$dir/kubeconfig" get serviceaccount default -n default

  if [ -z "$kwok_stages" ]; then
    kwok_stages="$dir/kwok.yaml"
    awk 'BEGIN { RS = "---\n"; ORS = "" } !/name: pod-complete\n/ { print "---\n" $0 }' "$repo/.tools/kube/kwok.yaml" >"$kwok_stages"
  fi
  kubeconfig "$dir/kwok.kubeconfig" --client-certificate "$pki/kwok.crt" --client-key "$pki/kwok.key" --embed-certs
  spawn kwok "$tools_bin/kwok" --kubeconfig "$dir/kwok.kubeconfig" --config "$kwok_stages" \
    --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
    --cidr 127.64.0.1/16 --node-ip 127.0.0.1 --node-lease-duration-seconds 40 \
    --server-address "127.0.0.1:$kwok_port"
}

# The chart's objects a cluster needs before gangplank's processes start: CRDs, the namespace, the
# ServiceAccounts and RBAC, and the webhook registration pointing at the operator on loopback.
apply_chart_objects() {
  "$kubectl" --kubeconfig "$dir/kubeconfig" apply --server-side -f "$repo/helm/gangplank/crds/" >/dev/null
  "$kubectl" --kubeconfig "$dir/kubeconfig" wait --for condition=Established --timeout 60s \
    crd/gpupools.gangplank.io crd/queues.gangplank.io >/dev/null
  "$kubectl" --kubeconfig "$dir/kubeconfig" create namespace "$namespace" >/dev/null
  local shown=()
  for t in extender/serviceaccount extender/rbac operator/serviceaccount operator/rbac operator/webhook operator/admission-policy \
           scheduler/serviceaccount scheduler/rbac scheduler/configmap; do
    shown+=(--show-only "templates/$t.yaml")
  done
  "$helm" template "$release" "$repo/helm/gangplank" --namespace "$namespace" "${shown[@]}" ${chart_sets[@]+"${chart_sets[@]}"} \
    --set "operator.webhook.url=https://127.0.0.1:$hook_port/mutate-pods" \
    --set "operator.webhook.caBundle=$(base64 -w0 "$pki/ca.crt")" >"$dir/chart-objects.yaml"
  "$kubectl" --kubeconfig "$dir/kubeconfig" apply -f "$dir/chart-objects.yaml" >/dev/null
}

# service_account_kubeconfig <component>: a kubeconfig holding a token of the chart's ServiceAccount.
service_account_kubeconfig() {
  local sa="$release-$1"
  local token
  token="$("$kubectl" --kubeconfig "$dir/kubeconfig" create token "$sa" -n "$namespace" --duration 48h)"
  kubeconfig "$dir/$1.kubeconfig" --token "$token"
  "$kubectl" config --kubeconfig "$dir/$1.kubeconfig" set-context real --namespace "$namespace" >/dev/null
}

# The stock kube-scheduler with the chart's KubeSchedulerConfiguration, its extender on loopback.
scheduler_config() {
  "$kubectl" --kubeconfig "$dir/kubeconfig" create --dry-run=client --validate=false -o jsonpath='{.data.config\.yaml}' \
    -f <("$helm" template "$release" "$repo/helm/gangplank" --namespace "$namespace" ${chart_sets[@]+"${chart_sets[@]}"} \
          --show-only templates/scheduler/configmap.yaml) |
    sed -e "s#urlPrefix: https://[^/]*/#urlPrefix: https://127.0.0.1:$ext_port/#" \
        -e "s#caFile: .*#caFile: $pki/ca.crt#" \
        -e "s#serverName: .*#serverName: 127.0.0.1#" \
        -e "s#certFile: .*#certFile: $pki/scheduler-client.crt#" \
        -e "s#keyFile: .*#keyFile: $pki/scheduler-client.key#" >"$dir/scheduler-config.yaml"
  # In a pod the scheduler finds the API server in-cluster; here the configuration names a kubeconfig
  # (kube-scheduler ignores --kubeconfig when --config is given).
  printf 'clientConnection:\n  kubeconfig: %s\n' "$dir/scheduler.kubeconfig" >>"$dir/scheduler-config.yaml"
  grep -q "urlPrefix: https://127.0.0.1:$ext_port/" "$dir/scheduler-config.yaml" &&
    grep -q "certFile: $pki/scheduler-client.crt" "$dir/scheduler-config.yaml" || {
    say "could not point the chart's scheduler configuration at the extender: $dir/scheduler-config.yaml"
    return 1
  }
}

start_gangplank() {
  apply_chart_objects
  for c in extender operator scheduler; do service_account_kubeconfig "$c"; done
  # The plan seal's key, shared by the operator and the extender as the chart's Secret is.
  openssl rand -hex 32 >"$pki/plan-seal.key"
  make_image_view
  local binary
  gangplank_binary gangplank-extender extender
  spawn gangplank-extender "${binary[@]}" --kubeconfig "$dir/extender.kubeconfig" \
    --listen-address 127.0.0.1 --port "$ext_port" --path-prefix /gangplank \
    --policy fragpack \
    --tls-cert-file "$pki/extender.crt" --tls-key-file "$pki/extender.key" \
    --client-ca-file "$pki/extender-client-ca.crt" --plan-seal-key-file "$pki/plan-seal.key" \
    ${extender_args[@]+"${extender_args[@]}"}
  gangplank_binary gangplank-operator operator
  spawn gangplank-operator "${binary[@]}" --kubeconfig "$dir/operator.kubeconfig" \
    --listen-address 127.0.0.1 --port "$op_port" --scheduler-name gangplank \
    --leader-elect --leader-election-namespace "$namespace" --leader-election-name "$release-operator" \
    --lease-duration-seconds 15 --renew-deadline-seconds 10 --retry-period-seconds 2 \
    --webhook-port "$hook_port" --webhook-path /mutate-pods --dry-run-port "$dry_run_port" \
    --webhook-tls-cert-file "$pki/webhook.crt" --webhook-tls-key-file "$pki/webhook.key" \
    --resync-seconds 5 --status-interval-seconds 2 --plan-seal-key-file "$pki/plan-seal.key" \
    ${operator_args[@]+"${operator_args[@]}"}
  wait_until 60 gangplank-extender curl -sf --cacert "$pki/ca.crt" --cert "$pki/scheduler-client.crt" \
    --key "$pki/scheduler-client.key" "https://127.0.0.1:$ext_port/readyz"
  wait_until 60 gangplank-operator curl -sf "http://127.0.0.1:$op_port/readyz"
  scheduler_config
  spawn kube-scheduler "$kube_bin/kube-scheduler" --config "$dir/scheduler-config.yaml" \
    --authentication-kubeconfig "$dir/scheduler.kubeconfig" --authorization-kubeconfig "$dir/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$sched_port" --v 2 ${cycle_args[@]+"${cycle_args[@]}"}
  wait_until 60 kube-scheduler curl -sfk "https://127.0.0.1:$sched_port/healthz"
}

# --dra: the DRA test driver under a DRA driver's RBAC (its ResourceSlices, the Nodes it publishes for and
# labels, the DeviceClasses it installs), and the default-profile kube-scheduler; waits until both are up.
dra_namespace=gangplank-dra-driver
dra_driver_bin="$repo/.tools/kube/bin/gangplank-dra-driver"  # the same for every Kubernetes version
start_dra() {
  "$kubectl" --kubeconfig "$dir/kubeconfig" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: $dra_namespace
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: gangplank-dra-driver
  namespace: $dra_namespace
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: gangplank-dra-driver
rules:
  - apiGroups: [resource.k8s.io]
    resources: [resourceslices]
    verbs: [get, list, watch, create, update, patch, delete, deletecollection]
  - apiGroups: [resource.k8s.io]
    resources: [deviceclasses]
    verbs: [get, create, update]
  - apiGroups: [""]
    resources: [nodes]
    verbs: [get, list, watch, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: gangplank-dra-driver
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: gangplank-dra-driver
subjects:
  - kind: ServiceAccount
    name: gangplank-dra-driver
    namespace: $dra_namespace
EOF
  local token
  token="$("$kubectl" --kubeconfig "$dir/kubeconfig" create token gangplank-dra-driver -n "$dra_namespace" --duration 48h)"
  kubeconfig "$dir/dra-driver.kubeconfig" --token "$token"
  spawn gangplank-dra-driver "$dra_driver_bin" --kubeconfig "$dir/dra-driver.kubeconfig"
  wait_until 60 gangplank-dra-driver "$kubectl" --kubeconfig "$dir/kubeconfig" get deviceclass gpu.nvidia.com
}

start_default_scheduler() {
  # The stock scheduler as kubeadm runs it: user system:kube-scheduler, bound to its bootstrap ClusterRole
  # (which covers DRA: claims and their status, slices, classes).
  cert default-scheduler "/CN=system:kube-scheduler"
  kubeconfig "$dir/default-scheduler.kubeconfig" --client-certificate "$pki/default-scheduler.crt" \
    --client-key "$pki/default-scheduler.key" --embed-certs
  spawn default-scheduler "$kube_bin/kube-scheduler" --kubeconfig "$dir/default-scheduler.kubeconfig" \
    --authentication-kubeconfig "$dir/default-scheduler.kubeconfig" \
    --authorization-kubeconfig "$dir/default-scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$default_sched_port" --leader-elect=false --v 1 ${gate_args[@]+"${gate_args[@]}"}
  wait_until 60 "the default kube-scheduler" curl -sfk "https://127.0.0.1:$default_sched_port/healthz"
}

# Polls the owner every second; stops the control plane when it is gone, ends when `stop` ran first.
watch_owner() {
  (
    while kill -0 "$owner" 2>/dev/null && [ -f "$dir/pids" ]; do sleep 1; done
    if [ -f "$dir/pids" ]; then "$0" stop --dir "$dir"; fi
  ) </dev/null >/dev/null 2>&1 &
}

# shellcheck source=scripts/job-controllers.sh
source "$repo/scripts/job-controllers.sh"
# shellcheck source=scripts/karpenter.sh
source "$repo/scripts/karpenter.sh"

case "$command" in
  start)
    for b in "$tools_bin/etcd" "$tools_bin/kwok" "$kube_bin/kube-apiserver" "$kube_bin/kube-controller-manager" \
             "$kube_bin/kube-scheduler"; do
      if [ ! -x "$b" ]; then
        say "$b is missing: run scripts/build-kube-binaries.sh (needs Go)"
        exit 3
      fi
    done
    if [ $dra = 1 ] && [ ! -x "$dra_driver_bin" ]; then
      say "$dra_driver_bin is missing: run scripts/build-kube-binaries.sh (needs Go)"
      exit 3
    fi
    for c in ${job_controllers//,/ }; do
      case "$c" in
        jobset|lws|kuberay|mpi-operator|training-operator) ;;
        *) say "--job-controllers: unknown controller $c (jobset, lws, kuberay, mpi-operator, training-operator)"; exit 2 ;;
      esac
      if [ ! -x "$repo/.tools/job-controllers/bin/$c-manager" ]; then
        say "$repo/.tools/job-controllers/bin/$c-manager is missing: run tools/job-controllers/build.sh (needs Go)"
        exit 3
      fi
    done
    if [ $karpenter = 1 ] && [ ! -x "$karpenter_dir/bin/karpenter-kwok" ]; then
      say "$karpenter_dir/bin/karpenter-kwok is missing: run tools/karpenter/build.sh (needs Go)"
      exit 3
    fi
    stop_all
    rm -rf "$dir/etcd" "$pki" "$dir"/*.log "$dir"/*.kubeconfig "$dir/kubeconfig"
    : >"$dir/pids"
    # Any step that fails (set -e) stops whatever had started.
    started=0
    trap '[ $started = 1 ] || stop_all' EXIT
    make_pki
    start_control_plane
    [ $dra = 0 ] || start_dra
    [ $default_scheduler = 0 ] || start_default_scheduler
    if [ ${#nodes[@]} -gt 0 ]; then
      for f in "${nodes[@]}"; do "$kubectl" --kubeconfig "$dir/kubeconfig" create -f "$f" >/dev/null; done
    fi
    [ $gangplank = 0 ] || start_gangplank
    [ -z "$job_controllers" ] || start_job_controllers "$job_controllers"
    [ $karpenter = 0 ] || start_karpenter
    started=1
    [ -z "$owner" ] || watch_owner
    say "running on 127.0.0.1: kube-apiserver :$api_port$([ $gangplank = 1 ] && echo ", extender :$ext_port, operator :$op_port, webhook :$hook_port")$([ $dra = 1 ] && echo ", DRA driver")$([ $default_scheduler = 1 ] && echo ", default kube-scheduler :$default_sched_port")$([ -n "$job_controllers" ] && echo ", job controllers $job_controllers")$([ $karpenter = 1 ] && echo ", Karpenter")"
    say "kubeconfig: $dir/kubeconfig (logs in $dir/)"
    ;;
  stop)
    stop_all
    ;;
  *)
    sed -n '2,/^set -euo pipefail/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
