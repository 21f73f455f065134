"""What every system's module and the benchmark share: the node labels the pools and topologies select."""
import time

POOL_LABEL = "bench.gangplank.io/pool"
GPU_PRODUCT = "NVIDIA-H100-80GB-HBM3"
# (name, node label), widest first; every node also has kubernetes.io/hostname.
TOPOLOGY = [("zone", "topology.kubernetes.io/zone"), ("block", "cloud.google.com/gce-topology-block"),
            ("clique", "nvidia.com/gpu.clique")]


def condition_true(obj, kind):
  """Whether the object's status has condition `kind` with status True."""
  return any(c.get("type") == kind and c.get("status") == "True" for c in obj.get("status", {}).get("conditions", []))


def wait_served(api, path, seconds=60):
  """Polls a GET of `path` until the API server answers it (a resource whose API or CRD was just turned on)."""
  t0 = time.time()
  while True:
    try:
      api.call("GET", path)
      return
    except RuntimeError:
      if time.time() - t0 > seconds:
        raise
      time.sleep(0.5)
