# Kubernetes' own gang scheduling (1.37): the stock kube-scheduler, default profile, with the feature
# gates GenericWorkload (beta, off by default) and TopologyAwareWorkloadScheduling (alpha) on it and on
# the control plane (real-cluster.sh --native-gangs); every multi-pod job is a scheduling.k8s.io/v1beta1
# PodGroup (sourced by bench/cluster/run.sh; native-gang.md here).
cluster_flags=(--no-gangplank --native-gangs)

system_build() { :; }  # The control plane's own kube-scheduler.

system_start() {
  local dir="$1"
  scheduler_config "$dir" "$dir/native-gang-scheduler.yaml" <<YAML
profiles:
- schedulerName: default-scheduler
YAML
  start_kube_scheduler "$dir" "$kube_bin/kube-scheduler" "$dir/native-gang-scheduler.yaml" \
    --feature-gates GenericWorkload=true,TopologyAwareWorkloadScheduling=true
}
