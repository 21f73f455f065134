#!/usr/bin/env bash
# Fragmentation replay (seeds 42..51, the paper's method) on the default openb trace and on the workload
# shapes derived from it (data/README.md), printing one markdown row per policy and shape:
# unallocated GPU % at 100% arrived, mean ± sample sd.
#   scripts/frag-shapes.sh [POLICIES] [OUT_DIR]
#   scripts/frag-shapes.sh fgd,bestfit,fragpack /tmp/shapes
# Uses build/simulator/gangplank-sim unless GANGPLANK_SIM names another binary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
POLICIES="${1:-fgd,bestfit,fragpack}"
OUT="${2:-out/shapes}"
SIM="${GANGPLANK_SIM:-build/simulator/gangplank-sim}"
SHAPES=(none model-constrained:0.05 model-constrained:0.1 model-constrained:0.2 model-constrained:0.25
        model-constrained:0.33 multi-gpu:0.2 multi-gpu:0.3 multi-gpu:0.4 multi-gpu:0.5)

IFS=, read -r -a policy_list <<<"$POLICIES"
printf '| shape |'; printf ' %s |' "${policy_list[@]}"; printf '\n|---|'
printf -- '---:|%.0s' "${policy_list[@]}"; printf '\n'
for shape in "${SHAPES[@]}"; do
  dir="$OUT/${shape//[:.]/_}"
  table="$("$SIM" fragmentation --policies "$POLICIES" --derive "$shape" --out "$dir")"
  printf '| %s |' "$([ "$shape" = none ] && echo default || echo "$shape")"
  for p in "${policy_list[@]}"; do  # The figures as gangplank-sim prints them: "policy mean ± sd ...".
    awk -v p="$p" '$1 == p { printf " %s ± %s |", $2, $4 }' <<<"$table"
  done
  printf '\n'
done
