"""scheduler-plugins' Coscheduling (v0.34.7): its kube-scheduler build with a Coscheduling profile; each job of
more than one pod is a PodGroup (scheduling.x-k8s.io/v1alpha1) of minMember = its pod count and minResources =
its pods' requests, its pods labelled scheduling.x-k8s.io/pod-group (coscheduling.md here)."""
from . import common

PROCESSES = ["kube-scheduler"]
VERSIONS = {"coscheduling": "sigs.k8s.io/scheduler-plugins v0.34.7 (tools/peers/coscheduling/go.mod)"}

SCHEDULER_NAME = "scheduler-plugins-scheduler"  # coscheduling.sh's profile
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"  # v1alpha1.PodGroupLabel
POD_GROUPS = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/bench/podgroups"
# What cluster_bench.py's pod_object asks for per pod, besides the job's GPUs.
POD_CPU, POD_MEMORY_GI = 1, 4
# minResources makes the plugin's PreFilter turn the whole group away while the cluster's free resources (summed
# over the nodes) cannot hold it, as Kubeflow's training operator fills it in; without it the members are
# reserved one by one until one does not fit, and PostFilter rejects those waiting at Permit.
MIN_RESOURCES = True


def setup(api, a, say):
  """coscheduling.sh waited for the CRD; this checks the namespace's PodGroups are served."""
  common.wait_served(api, POD_GROUPS + "?limit=1")


def job_objects(job, run_id):
  if job["pods"] <= 1:
    return []
  n = job["pods"]
  spec = {"minMember": n}
  if MIN_RESOURCES:
    spec["minResources"] = {"cpu": str(n * POD_CPU), "memory": "%dGi" % (n * POD_MEMORY_GI),
                            "nvidia.com/gpu": str(n * job["gpus"])}
  return [(POD_GROUPS, {
      "apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
      "metadata": {"name": job["job"], "namespace": "bench", "labels": {"bench.gangplank.io/run": run_id}},
      "spec": spec})]


def shape_pod(pod, job):
  pod["spec"]["schedulerName"] = SCHEDULER_NAME
  if job["pods"] > 1:
    pod["metadata"]["labels"][POD_GROUP_LABEL] = job["job"]
