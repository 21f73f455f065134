#!/usr/bin/env bash
# Gangs on an empty autoscaled pool (issue 34): the same gangs under the stock kube-scheduler and under
# gangplank, each on a fresh real control plane (scripts/real-cluster.sh --karpenter) with Karpenter and
# its KWOK provider adding and removing 8-GPU nodes for real, in two scenarios: a NodePool limit that holds
# every gang, and one that holds only part of them (where the stock path provisions for, and binds, parts of
# several gangs).
#
#   bench/autoscaling/run.sh [--gangs N] [--size S] [--window SECONDS] [--out DIR] [--build B] [--port-base P]
#
# --gangs, --size  gangs of S pods of 8 GPUs, all submitted at once (default 3 gangs of 4)
# --window         seconds each run is watched (default 150)
# --out            figures and the control planes' logs (default out/autoscaling)
# --port-base      first of the loopback ports (default 28000); 20 are used
#
# Writes <out>/<system>-<scenario>.json and <out>/table.md, and prints the table. Needs Go (Karpenter and
# the Kubernetes components are built from pinned modules on first use) and kubectl and Helm
# (scripts/install-kube-tools.sh).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$repo/bench/autoscaling"
gangs=3
size=4
window=150
out="$repo/out/autoscaling"
build="$repo/build"
base=28000
while [ $# -gt 0 ]; do
  case "$1" in
    --gangs) gangs="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --window) window="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --port-base) base="$2"; shift 2 ;;
    *) echo "autoscaling bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
"$repo/scripts/build-kube-binaries.sh"
"$repo/tools/karpenter/build.sh"
export PATH="$repo/.tools/bin:$PATH"

# Every gang fits the NodePool's limit, or only half of them (rounded down to whole nodes).
all=$((gangs * size * 8))
part=$(( (gangs * size / 2) * 8 ))
results=()
for scenario in "all:$all" "part:$part"; do
  name="${scenario%%:*}"; limit="${scenario#*:}"
  for system in kube-scheduler gangplank; do
    dir="$out/$system-$name"
    flags=(--dir "$dir" --build "$build" --port-base "$base" --karpenter --default-scheduler)
    [ "$system" = gangplank ] || flags+=(--no-gangplank)
    "$repo/scripts/real-cluster.sh" start "${flags[@]}"
    status=0
    python3 "$here/autoscaling_bench.py" run --kubeconfig "$dir/kubeconfig" --system "$system" --gangs "$gangs" \
      --size "$size" --limit-gpus "$limit" --window "$window" --out "$out/$system-$name.json" || status=$?
    "$repo/scripts/real-cluster.sh" stop --dir "$dir"
    [ "$status" = 0 ] || exit "$status"
    results+=("$out/$system-$name.json")
  done
done
python3 "$here/autoscaling_bench.py" table "${results[@]}" | tee "$out/table.md"
