"""Kubernetes' own gangs (1.37, GenericWorkload): the stock kube-scheduler, default profile; each job of more
than one pod is a PodGroup (scheduling.k8s.io/v1beta1) with gang.minCount = its pod count and the NVLink clique
as its topology key, its pods joining it by spec.schedulingGroup (native-gang.md here)."""
from . import common

PROCESSES = ["kube-scheduler"]
VERSIONS = {"native-gang": "kube-scheduler 1.37 (tools/kube-binaries), GenericWorkload + TopologyAwareWorkloadScheduling"}

POD_GROUPS = "/apis/scheduling.k8s.io/v1beta1/namespaces/bench/podgroups"
CLIQUE_LABEL = dict(common.TOPOLOGY)["clique"]


def setup(api, a, say):
  """The control plane serves scheduling.k8s.io/v1beta1 (real-cluster.sh --native-gangs): check it does."""
  common.wait_served(api, POD_GROUPS + "?limit=1")


def job_objects(job, run_id):
  if job["pods"] <= 1:
    return []
  # The trace's largest gang (32 GPUs) fits one clique (cluster_bench.py NODES_PER_CLIQUE): every gang is
  # held to one, as gangplank's and Kueue's prefer.
  return [(POD_GROUPS, {
      "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
      "metadata": {"name": job["job"], "namespace": "bench", "labels": {"bench.gangplank.io/run": run_id}},
      "spec": {"schedulingPolicy": {"gang": {"minCount": job["pods"]}},
               "schedulingConstraints": {"topology": [{"key": CLIQUE_LABEL}]}}})]


def shape_pod(pod, job):
  pod["spec"]["schedulerName"] = "default-scheduler"
  if job["pods"] > 1:
    pod["spec"]["schedulingGroup"] = {"podGroupName": job["job"]}
