#!/usr/bin/env bash
# gangplank on loopback, without a cluster: the API-server double (seeded with the CRDs and the nodes of
# examples/local/nodes/nodes.yaml), the extender, the operator and the scheduler driver that plays
# kube-scheduler's part, each a background process logging to out/local/.
#   scripts/local-cluster.sh start [build-dir]   start them; the kubeconfig is out/local/kubeconfig
#   scripts/local-cluster.sh stop                stop them
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=out/local
build="${2:-build}"
case "${1:-}" in
  start)
    mkdir -p "$dir"
    "$0" stop >/dev/null 2>&1 || true
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
    ;;
  stop)
    if [ -f "$dir/pids" ]; then
      pids=$(cat "$dir/pids")
      kill $pids 2>/dev/null || true
      for _ in $(seq 100); do kill -0 $pids 2>/dev/null || break; sleep 0.1; done  # Graceful exits first.
    fi
    rm -f "$dir/pids"
    ;;
  *)
    sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
