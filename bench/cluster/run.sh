#!/usr/bin/env bash
# The cluster benchmark (issue 18): the same trace-derived workload under each system, each on a fresh
# real control plane (scripts/real-cluster.sh) with KWOK nodes, and the figures side by side.
#
#   bench/cluster/run.sh [--nodes N] [--systems kube-scheduler,coscheduling,kueue,native-gang,gangplank] [--out DIR] [--build B]
#                        [--port-base P] [--dra] [--profile] [--call-graph] [--submit pods|jobsets|both]
#                        [-- extra cluster_bench.py run flags, e.g. --load 1.5]
#
# --nodes      KWOK nodes of 8 nvidia.com/gpu each (default 100)
# --systems    comma-separated, run in this order (default: all five; with --dra kube-scheduler,gangplank); each is a file pair in systems/
#              (systems/README.md); the peers are built from pinned Go modules on first use (tools/peers/):
#              kube-scheduler  the stock kube-scheduler, default profile, plain pods (no gang semantics)
#              native-gang     the stock kube-scheduler with Kubernetes' own gangs (GenericWorkload,
#                              TopologyAwareWorkloadScheduling), a scheduling.k8s.io PodGroup per gang
#              coscheduling    scheduler-plugins v0.34.7's kube-scheduler with Coscheduling, a PodGroup per gang
#              kueue           Kueue v0.17.0 (pod groups, TAS) in front of the stock kube-scheduler
#              gangplank       stock kube-scheduler + gangplank-extender + gangplank-operator, GPUPool and Queue
# --dra        every GPU node's GPUs come from Dynamic Resource Allocation (the DRA test driver,
#              tests/support/dra-driver, publishes NVIDIA-shaped ResourceSlices; pods still ask nvidia.com/gpu,
#              served by the DeviceClass gpu.nvidia.com); for the systems whose version allocates or accounts
#              DRA GPUs: kube-scheduler and gangplank (scheduler-plugins v0.34.7 predates DRA-backed extended
#              resources; Kueue v0.17.0's topology-aware scheduling reads GPUs from node allocatable)
# --submit     how each job goes in: pods (default; the benchmark writes its pods, and the system's objects
#              such as a PodGroup), jobsets (one JobSet per job: the real JobSet v0.11.0 controller,
#              tools/job-controllers, makes its Job and kube-controller-manager's Job controller its pods,
#              so their API traffic and CPU are in the figures), or both (each system twice, pods first);
#              JobSets for kube-scheduler and gangplank only (the PodGroup systems' pods would need the
#              group's name or label the JobSet does not set); <out>/<system>-jobsets.json beside <system>.json
# --profile    perf record (Debian's linux-perf; 97 samples/s, user space) on every process of the control
#              plane and the system but KWOK while the workload runs; <out>/<system>/profile-<process>.txt
#              lists its functions by their own share of its samples (the samples stay in perf-<process>.data)
# --call-graph with --profile: gangplank's own processes are recorded with their call stacks (DWARF
#              unwinding: the build keeps no frame pointers; about 1 MB a second each), and
#              <out>/<system>/callers-<process>.txt lists each function's share with what it calls inside
# --out        figures and per-system logs (default out/cluster)
# --port-base  first of the loopback ports (default 27000): +0..+8 the control plane's, +9.. a system's
#              (Kueue takes +9..+11; the JobSet controller, with --submit jobsets, +11 and +12); keep two
#              concurrent runs 20 apart
#
# Writes <out>/table.md, <out>/figures.csv, <out>/report.html and <out>/<system>.json; prints the table.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$repo/bench/cluster"
nodes=100
systems=""
out="$repo/out/cluster"
build="$repo/build"
base=27000
extra=()
dra=0
profile=0
call_graph=0
submit=pods
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes="$2"; shift 2 ;;
    --systems) systems="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --port-base) base="$2"; shift 2 ;;
    --dra) dra=1; shift ;;
    --profile) profile=1; shift ;;
    --call-graph) call_graph=1; shift ;;
    --submit) submit="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "cluster-bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
say() { echo "cluster-bench: $*" >&2; }
kube_bin="$repo/.tools/kube/bin"
kubectl="$repo/.tools/bin/kubectl"
# Client rate limit given to every scheduler-side process: kube-scheduler's own default (50/100), which
# gangplank-operator and gangplank-extender also default to.
qps=50
burst=100

# replace_kwok <dir>: the control plane's KWOK again, with the benchmark's pod-complete stage added.
replace_kwok() {
  local dir="$1" pid
  pid="$(awk '$2 == "kwok" {print $1}' "$dir/pids")"
  kill "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  cat "$repo/.tools/kube/kwok.yaml" "$here/pod-complete-stage.yaml" >"$dir/kwok-bench.yaml"
  "$kube_bin/kwok" --kubeconfig "$dir/kwok.kubeconfig" --config "$dir/kwok-bench.yaml" \
    --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
    --cidr 127.64.0.1/16 --node-ip 127.0.0.1 --node-lease-duration-seconds 40 \
    --server-address "127.0.0.1:$((base + 8))" >"$dir/kwok-bench.log" 2>&1 &
  echo "$! kwok" >>"$dir/pids"
}

# start_profiles <dir>: one perf record per process of <dir>/pids but KWOK, its pid kept in <dir>/profilers.
start_profiles() {
  local dir="$1" pid name stacks
  command -v perf >/dev/null || { say "--profile needs perf (apt-get install linux-perf)"; exit 2; }
  : >"$dir/profilers"
  while read -r pid name; do
    case "$name" in kwok*) continue ;; esac
    stacks=()
    case "$name" in gangplank-*) [ "$call_graph" = 0 ] || stacks=(--call-graph dwarf,16384) ;; esac
    perf record -q -F 97 "${stacks[@]}" -p "$pid" -o "$dir/perf-$name.data" >"$dir/perf-$name.log" 2>&1 &
    echo "$! $name" >>"$dir/profilers"
  done <"$dir/pids"
}

# stop_profiles <dir>: ends the recordings and writes each process's top functions by own samples.
stop_profiles() {
  local dir="$1" pid name
  while read -r pid name; do kill -INT "$pid" 2>/dev/null || true; done <"$dir/profilers"
  while read -r pid name; do
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
    perf report -i "$dir/perf-$name.data" --stdio --no-children --sort symbol --percent-limit 0.5 -g none \
      >"$dir/profile-$name.txt" 2>>"$dir/perf-$name.log" || say "no profile of $name (see $dir/perf-$name.log)"
    case "$name" in gangplank-*) [ "$call_graph" = 0 ] ||
      perf report -i "$dir/perf-$name.data" --stdio --children --sort symbol --percent-limit 2 -g caller,2,callee,function \
        >"$dir/callers-$name.txt" 2>>"$dir/perf-$name.log" || say "no call graph of $name (see $dir/perf-$name.log)" ;; esac
  done <"$dir/profilers"
}

# scheduler_config <dir> <file>: a KubeSchedulerConfiguration with the benchmark's client (the control
# plane's admin kubeconfig, QPS/burst $qps/$burst) and no leader election; its profiles come on stdin.
scheduler_config() {
  local dir="$1" file="$2"
  {
    cat <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
clientConnection:
  kubeconfig: $dir/kubeconfig
  qps: $qps
  burst: $burst
YAML
    cat
  } >"$file"
}

# start_kube_scheduler <dir> <binary> <config> [flag...]: a kube-scheduler-like binary on port base+4, with
# any further flags (e.g. --feature-gates), healthy.
start_kube_scheduler() {
  local dir="$1" binary="$2" config="$3"
  shift 3
  "$binary" --config "$config" --authentication-kubeconfig "$dir/kubeconfig" \
    --authorization-kubeconfig "$dir/kubeconfig" --bind-address 127.0.0.1 --secure-port "$((base + 4))" --v 1 "$@" \
    >"$dir/kube-scheduler.log" 2>&1 &
  echo "$! kube-scheduler" >>"$dir/pids"
  for _ in $(seq 300); do
    curl -sfk "https://127.0.0.1:$((base + 4))/healthz" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  say "$binary did not come up; $dir/kube-scheduler.log"
  return 1
}

# load_system <name>: the system's cluster_flags, system_build and system_start (systems/README.md).
load_system() {
  local file="$here/systems/$1.sh"
  [ -f "$file" ] || { say "unknown system $1 (one of: $(cd "$here/systems" && ls *.sh | sed 's/\.sh$//' | tr '\n' ' '))"; exit 2; }
  unset -f system_build system_start
  cluster_flags=()
  # shellcheck disable=SC1090
  source "$file"
}

current=""
cleanup() { [ -z "$current" ] || "$repo/scripts/real-cluster.sh" stop --dir "$current" || true; }
trap cleanup EXIT

began=$SECONDS
# The systems that run with DRA GPUs when --dra names none; all five otherwise.
[ -n "$systems" ] || { [ $dra = 1 ] && systems=kube-scheduler,gangplank || systems=kube-scheduler,coscheduling,kueue,native-gang,gangplank; }
IFS=, read -r -a list <<<"$systems"
case "$submit" in
  pods) submits=(pods) ;;
  jobsets) submits=(jobsets) ;;
  both) submits=(pods jobsets) ;;
  *) say "--submit: pods, jobsets or both, not $submit"; exit 2 ;;
esac
if [ "$submit" != pods ]; then
  for system in "${list[@]}"; do
    case "$system" in kube-scheduler|gangplank) ;; *) say "--submit $submit: JobSets for kube-scheduler and gangplank only, not $system"; exit 2 ;; esac
  done
  "$repo/tools/job-controllers/build.sh"  # JobSet's controller (a stamp makes a second call do nothing)
fi
for system in "${list[@]}"; do  # every system known and built before the first control plane starts
  if [ $dra = 1 ] && [ "$system" != kube-scheduler ] && [ "$system" != gangplank ]; then
    say "--dra: $system does not allocate or account DRA GPUs at its pinned version; run kube-scheduler,gangplank"
    exit 2
  fi
  load_system "$system"
  system_build
done
dra_flags=()
[ $dra = 0 ] || dra_flags=(--dra)
for system in "${list[@]}"; do
  for how in "${submits[@]}"; do
    load_system "$system"
    dir="$out/$system"
    submit_flags=()
    if [ "$how" = jobsets ]; then
      dir="$out/$system-jobsets"
      submit_flags=(--job-controllers jobset)
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    flags=(--dir "$dir" --build "$build" --port-base "$base" --owner-pid $$ ${cluster_flags[@]+"${cluster_flags[@]}"}
           ${dra_flags[@]+"${dra_flags[@]}"} ${submit_flags[@]+"${submit_flags[@]}"})
    say "$system ($how): starting a fresh control plane ($nodes nodes) in $dir"
    t=$SECONDS
    current="$dir"
    "$repo/scripts/real-cluster.sh" start "${flags[@]}"
    replace_kwok "$dir"
    system_start "$dir"
    [ $profile = 0 ] || start_profiles "$dir"
    python3 "$here/cluster_bench.py" run --system "$system" --submit "$how" --nodes "$nodes" --kubeconfig "$dir/kubeconfig" \
      --pids "$dir/pids" --out "$out" --qps "$qps" --burst "$burst" ${dra_flags[@]+"${dra_flags[@]}"} \
      ${extra[@]+"${extra[@]}"}
    [ $profile = 0 ] || stop_profiles "$dir"
    "$repo/scripts/real-cluster.sh" stop --dir "$dir"
    current=""
    say "$system ($how): done in $((SECONDS - t)) s"
  done
done
python3 "$here/cluster_bench.py" report --out "$out" --systems "$systems"
say "all systems in $((SECONDS - began)) s"
