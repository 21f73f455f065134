# The stock kube-scheduler, default profile, plain pods (sourced by bench/cluster/run.sh; README.md here).
cluster_flags=(--no-gangplank)

system_build() { :; }

system_start() {
  local dir="$1"
  cat >"$dir/default-scheduler.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
clientConnection:
  kubeconfig: $dir/kubeconfig
  qps: $qps
  burst: $burst
profiles:
- schedulerName: default-scheduler
YAML
  start_kube_scheduler "$dir" "$kube_bin/kube-scheduler" "$dir/default-scheduler.yaml"
}
