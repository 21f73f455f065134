#!/usr/bin/env bash
# gangplank on loopback with the nodes of examples/local/nodes/nodes.yaml, each component a background
# process logging to out/local/, the kubeconfig in out/local/kubeconfig.
#   scripts/local-cluster.sh start [build-dir]   start it
#   scripts/local-cluster.sh stop                 stop it
# A real control plane (scripts/real-cluster.sh): etcd, kube-apiserver, kube-controller-manager, KWOK
# running the nodes' pods, the stock kube-scheduler calling gangplank-extender, and gangplank-operator.
# It needs the Kubernetes components scripts/build-kube-binaries.sh builds (with Go).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=out/local
command="${1:-}"
[ $# -gt 0 ] && shift
build="${1:-build}"

case "$command" in
  start)
    if [ ! -s .tools/kube/stamp ]; then
      echo "local-cluster: the Kubernetes components are not built; run scripts/build-kube-binaries.sh (needs Go)" >&2
      exit 1
    fi
    mkdir -p "$dir"
    "$0" stop >/dev/null 2>&1 || true
    scripts/real-cluster.sh start --dir "$dir" --build "$build" --nodes examples/local/nodes/nodes.yaml
    ;;
  stop)
    # out/local/pids lists what was started; real-cluster.sh stops it (SIGTERM, then SIGKILL after 10 s).
    scripts/real-cluster.sh stop --dir "$dir"
    ;;
  *)
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
