"""gangplank: the stock kube-scheduler with gangplank's extender, gangplank-extender and gangplank-operator;
one GPUPool over every node (topology levels zone, block, clique, hostname) and one Queue."""
import json
import time

from . import common

PROCESSES = ["kube-scheduler", "gangplank-extender", "gangplank-operator"]


def setup(api, a, say):
  t0 = time.time()
  api.call("POST", "/apis/gangplank.io/v1alpha1/gpupools", {
      "apiVersion": "gangplank.io/v1alpha1", "kind": "GPUPool", "metadata": {"name": "h100"},
      "spec": {"gpuModel": common.GPU_PRODUCT, "nodeSelector": {common.POOL_LABEL: "h100"},
               "topologyLevels": [key for _, key in common.TOPOLOGY] + ["kubernetes.io/hostname"]}})
  api.call("POST", "/apis/gangplank.io/v1alpha1/queues", {
      "apiVersion": "gangplank.io/v1alpha1", "kind": "Queue", "metadata": {"name": "bench"},
      "spec": {"namespaces": ["bench"], "pools": [{"name": "h100"}]}})
  # The operator's status on the pool says it is Ready with every node's GPUs.
  while True:
    pool = api.call("GET", "/apis/gangplank.io/v1alpha1/gpupools/h100")
    if common.condition_true(pool, "Ready") and pool.get("status", {}).get("capacityGPUs") == 8 * a.nodes:
      break
    if time.time() - t0 > 900:
      break
    time.sleep(0.5)
  say("GPUPool h100 status: %s" % json.dumps(pool.get("status", {}))[:300])


def job_objects(job, run_id):
  return []


def shape_pod(pod, job):
  pod["spec"]["schedulerName"] = "gangplank"
  pod["metadata"]["labels"]["gangplank.io/queue"] = "bench"
  # A controller's pods (a JobSet's) are a gang by their owner, sized from its spec, as users submit them.
  if job["pods"] > 1 and not job.get("controller"):
    pod["metadata"]["labels"]["gangplank.io/gang"] = job["job"]
    pod["metadata"]["annotations"]["gangplank.io/gang-size"] = str(job["pods"])
