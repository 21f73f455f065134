"""The stock kube-scheduler with its default profile: plain pods, no gang semantics (the throughput ceiling)."""

PROCESSES = ["kube-scheduler"]


def setup(api, a, say):
  """Nothing beyond the nodes and the namespace."""


def job_objects(job, run_id):
  return []


def shape_pod(pod, job):
  pod["spec"]["schedulerName"] = "default-scheduler"
