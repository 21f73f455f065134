#!/usr/bin/env bash
# gangplank on loopback with the nodes of examples/local/nodes/nodes.yaml, each component a background
# process logging to out/local/, the kubeconfig in out/local/kubeconfig.
#   scripts/local-cluster.sh start [--real|--double] [build-dir]   start it
#   scripts/local-cluster.sh stop                                   stop it
# --real (the default once scripts/build-kube-binaries.sh has built the Kubernetes components): a real
#   control plane (scripts/real-cluster.sh): etcd, kube-apiserver, kube-controller-manager, KWOK running
#   the nodes' pods, the stock kube-scheduler calling gangplank-extender, and gangplank-operator.
# --double (the default without them): the API-server double, the extender, the operator and the
#   scheduler driver that plays kube-scheduler's part.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=out/local
command="${1:-}"
[ $# -gt 0 ] && shift
mode=""
build=build
for arg in "$@"; do
  case "$arg" in
    --real) mode=real ;;
    --double) mode=double ;;
    *) build="$arg" ;;
  esac
done
if [ -z "$mode" ]; then
  mode=double
  [ -s .tools/kube/stamp ] && mode=real
fi

start_double() {
  "$build/apiserver-double/gangplank-apiserver-double" --port 16443 --kubeconfig-out "$dir/kubeconfig" \
    --bookmark-interval-ms 1000 --seed crds/gpupool.gangplank.io.yaml --seed crds/queue.gangplank.io.yaml \
    --seed examples/local/nodes/nodes.yaml >"$dir/apiserver-double.log" 2>&1 &
  echo $! >"$dir/pids"
  for _ in $(seq 100); do [ -s "$dir/kubeconfig" ] && break; sleep 0.1; done
  "$build/extender/gangplank-extender" --kubeconfig "$dir/kubeconfig" --listen-address 127.0.0.1 --port 18888 \
    --path-prefix /gangplank >"$dir/extender.log" 2>&1 &
  echo $! >>"$dir/pids"
  "$build/operator/gangplank-operator" --kubeconfig "$dir/kubeconfig" --listen-address 127.0.0.1 --port 18080 \
    --no-leader-elect --resync-seconds 5 >"$dir/operator.log" 2>&1 &
  echo $! >>"$dir/pids"
  "$build/tools/scheduler-driver/gangplank-scheduler-driver" --kubeconfig "$dir/kubeconfig" \
    --extender-url http://127.0.0.1:18888/gangplank --metrics-bind-address 127.0.0.1 --metrics-port 18251 \
    >"$dir/scheduler-driver.log" 2>&1 &
  echo $! >>"$dir/pids"
  for port in 18888 18080 18251; do
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
  done
  echo "running: API-server double :16443, extender :18888, operator :18080, scheduler driver :18251"
  echo "kubeconfig: $dir/kubeconfig (logs in $dir/)"
}

case "$command" in
  start)
    mkdir -p "$dir"
    "$0" stop >/dev/null 2>&1 || true
    if [ "$mode" = real ]; then
      scripts/real-cluster.sh start --dir "$dir" --build "$build" --nodes examples/local/nodes/nodes.yaml
    else
      start_double
    fi
    ;;
  stop)
    # Either setup: out/local/pids lists what was started, and real-cluster.sh stops it (SIGTERM, then
    # SIGKILL after 10 s).
    scripts/real-cluster.sh stop --dir "$dir"
    ;;
  *)
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
