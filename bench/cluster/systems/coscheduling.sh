# scheduler-plugins' Coscheduling (sigs.k8s.io/scheduler-plugins v0.34.7): its kube-scheduler build with
# one profile that enables the Coscheduling plugin as the release documents it, and the PodGroup CRD;
# every multi-pod job gets a PodGroup of minMember = its pod count (sourced by bench/cluster/run.sh;
# coscheduling.md here).
cluster_flags=(--no-gangplank)

system_build() {
  local rc=0
  bash "$repo/tools/peers/coscheduling/build.sh" || rc=$?
  if [ "$rc" = 3 ]; then
    say "coscheduling: Go is not installed; cannot build scheduler-plugins' scheduler"
  fi
  return "$rc"
}

system_start() {
  local dir="$1" crd=podgroups.scheduling.x-k8s.io
  "$kubectl" --kubeconfig "$dir/kubeconfig" apply --server-side \
    -f "$repo/.tools/peers/coscheduling/scheduling.x-k8s.io_podgroups.yaml" >/dev/null
  "$kubectl" --kubeconfig "$dir/kubeconfig" wait --for condition=Established --timeout 60s "crd/$crd" >/dev/null
  # The plugin's PodGroup reader finds the kind through discovery: wait until the API server serves it.
  local i
  for i in $(seq 100); do
    "$kubectl" --kubeconfig "$dir/kubeconfig" get --raw /apis/scheduling.x-k8s.io/v1alpha1 2>/dev/null |
      grep -q '"podgroups"' && break
    [ "$i" = 100 ] && { say "coscheduling: the API server does not serve $crd"; return 1; }
    sleep 0.2
  done
  # scheduler-plugins' manifests/coscheduling/scheduler-config.yaml (v0.34.7): Coscheduling at every
  # extension point it implements (multiPoint: PreFilter, PostFilter, Permit, Reserve/Unreserve and its
  # queueing hints) and as the only queue sort; the default plugins stay on. permitWaitingTimeSeconds
  # (10) is the manifest's; podGroupBackoffSeconds (0) and podGroupRejectPercentage (10) the release's
  # defaults.
  scheduler_config "$dir" "$dir/coscheduling-scheduler.yaml" <<YAML
profiles:
- schedulerName: scheduler-plugins-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: Coscheduling
    queueSort:
      enabled:
      - name: Coscheduling
      disabled:
      - name: "*"
  pluginConfig:
  - name: Coscheduling
    args:
      permitWaitingTimeSeconds: 10
YAML
  start_kube_scheduler "$dir" "$repo/.tools/peers/bin/coscheduling-scheduler" "$dir/coscheduling-scheduler.yaml"
}
