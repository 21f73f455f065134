# gangplank as the chart installs it: scripts/real-cluster.sh starts the stock kube-scheduler with the
# extender configuration, gangplank-extender and gangplank-operator (sourced by bench/cluster/run.sh).
cluster_flags=(--operator-arg "--kube-api-qps=$qps" --operator-arg "--kube-api-burst=$burst")

system_build() { :; }   # run.sh's caller (./run.sh bench cluster) builds gangplank

system_start() { :; }   # real-cluster.sh started everything
