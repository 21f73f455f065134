"""Kueue v0.17.0 in front of the stock kube-scheduler (kueue.md here): a Topology over the node labels
gangplank's pool has (zone, block, clique, hostname), one ResourceFlavor over every node with that topology,
one ClusterQueue whose nominal quota is the whole cluster, one LocalQueue `bench`. Plain pods carry the
queue label; a job of several pods is a Kueue pod group, admitted whole, preferring one NVLink clique."""
import json
import time

from . import common

PROCESSES = ["kube-scheduler", "kueue-manager"]
VERSIONS = {"kueue": "sigs.k8s.io/kueue v0.17.0 (tools/peers/kueue/go.mod)"}

API = "/apis/kueue.x-k8s.io/v1beta2"
CLIQUE_LABEL = dict(common.TOPOLOGY)["clique"]


def setup(api, a, say):
  t0 = time.time()
  api.call("POST", API + "/topologies", {
      "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": "bench"},
      "spec": {"levels": [{"nodeLabel": key} for _, key in common.TOPOLOGY] + [{"nodeLabel": "kubernetes.io/hostname"}]}})
  api.call("POST", API + "/resourceflavors", {
      "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "h100"},
      "spec": {"nodeLabels": {common.POOL_LABEL: "h100"}, "topologyName": "bench"}})
  # Per node: 8 GPUs, 96 CPUs, 1024Gi (cluster_bench.node_object); the queue may use the whole cluster, as
  # gangplank's Queue has the whole pool.
  quota = {"nvidia.com/gpu": str(8 * a.nodes), "cpu": str(96 * a.nodes), "memory": "%dGi" % (1024 * a.nodes)}
  api.call("POST", API + "/clusterqueues", {
      "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "bench"},
      "spec": {"namespaceSelector": {},
               "resourceGroups": [{"coveredResources": list(quota),
                                   "flavors": [{"name": "h100", "resources": [
                                       {"name": r, "nominalQuota": q} for r, q in quota.items()]}]}]}})
  api.call("POST", "/apis/kueue.x-k8s.io/v1beta2/namespaces/bench/localqueues", {
      "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "bench", "namespace": "bench"},
      "spec": {"clusterQueue": "bench"}})
  # The ClusterQueue is Active once Kueue has its flavor and topology; the LocalQueue once it has both.
  while True:
    cq = api.call("GET", API + "/clusterqueues/bench")
    lq = api.call("GET", API + "/namespaces/bench/localqueues/bench")
    if (common.condition_true(cq, "Active") and common.condition_true(lq, "Active")) or time.time() - t0 > 300:
      break
    time.sleep(0.5)
  if not common.condition_true(cq, "Active"):
    raise RuntimeError("Kueue ClusterQueue bench not Active after 300 s: %s" % json.dumps(cq.get("status", {}))[:500])
  say("ClusterQueue bench Active in %.1f s: %s" % (time.time() - t0, json.dumps(cq.get("status", {}).get("conditions", []))[:300]))


def job_objects(job, run_id):
  return []


def shape_pod(pod, job):
  pod["spec"]["schedulerName"] = "default-scheduler"
  pod["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = "bench"
  if job["pods"] > 1:
    pod["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"] = job["job"]
    pod["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"] = str(job["pods"])
  # Topology-aware: the pod set prefers one NVLink clique (gangplank's gangs do too), else the narrowest
  # level that holds it.
  pod["metadata"]["annotations"]["kueue.x-k8s.io/podset-preferred-topology"] = CLIQUE_LABEL
