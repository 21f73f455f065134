# The stock kube-scheduler, default profile, plain pods (sourced by bench/cluster/run.sh; README.md here).
cluster_flags=(--no-gangplank)

system_build() { :; }

system_start() {
  local dir="$1"
  scheduler_config "$dir" "$dir/default-scheduler.yaml" <<YAML
profiles:
- schedulerName: default-scheduler
YAML
  start_kube_scheduler "$dir" "$kube_bin/kube-scheduler" "$dir/default-scheduler.yaml"
}
