"""What every system's module and the benchmark share: the node labels the pools and topologies select."""

POOL_LABEL = "bench.gangplank.io/pool"
GPU_PRODUCT = "NVIDIA-H100-80GB-HBM3"
# (name, node label), widest first; every node also has kubernetes.io/hostname.
TOPOLOGY = [("zone", "topology.kubernetes.io/zone"), ("block", "cloud.google.com/gce-topology-block"),
            ("clique", "nvidia.com/gpu.clique")]


def condition_true(obj, kind):
  """Whether the object's status has condition `kind` with status True."""
  return any(c.get("type") == kind and c.get("status") == "True" for c in obj.get("status", {}).get("conditions", []))
