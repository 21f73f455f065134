#!/usr/bin/env python3
"""The cluster benchmark's workload, its observer and its figures (issue 18), standard library only.

  cluster_bench.py workload --nodes N [...]          print the derived workload's shape
  cluster_bench.py run --system S --kubeconfig K ... create the nodes (and the system's objects, systems/),
                                                     submit the workload, watch every pod, write S.json
  cluster_bench.py report --out DIR                  the table (stdout, table.md), figures.csv, report.html

bench/cluster/run.sh drives it: one fresh control plane per system. README.md (this folder) says what
every figure means and where the workload comes from.
"""
import argparse
import base64
import bisect
import csv
import datetime
import html
import http.client
import json
import math
import os
import queue
import re
import ssl
import subprocess
import sys
import tempfile
import threading
import importlib
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from systems import common  # noqa: E402 - after the path that finds it

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN_LABEL = "bench.gangplank.io/run"
DURATION_ANNOTATION = "bench.gangplank.io/duration"
POOL_LABEL, GPU_PRODUCT, TOPOLOGY = common.POOL_LABEL, common.GPU_PRODUCT, common.TOPOLOGY
NODES_PER_CLIQUE = 4    # 32 GPUs in one NVLink domain
NODES_PER_BLOCK = 16    # 128 GPUs: the trace's largest gang (32 GPUs) fits a block four times over
PHILLY = os.path.join(REPO, "data", "philly", "philly_jobs_sep_oct_2017.csv")


# ---------------------------------------------------------------------------------------------- workload
def node_topology(i, nodes):
  zone_nodes = max(NODES_PER_BLOCK, ((nodes + 1) // 2 + NODES_PER_BLOCK - 1) // NODES_PER_BLOCK * NODES_PER_BLOCK)
  return {"zone": "zone-%d" % (i // zone_nodes), "block": "block-%03d" % (i // NODES_PER_BLOCK),
          "clique": "clique-%04d" % (i // NODES_PER_CLIQUE)}


def load_philly():
  jobs = []
  with open(PHILLY) as f:
    for r in csv.DictReader(f):
      t = datetime.datetime.fromisoformat(r["timestamp"]).replace(tzinfo=datetime.timezone.utc).timestamp()
      jobs.append((t, float(r["duration"]), int(float(r["num_gpus"])), r["cluster"]))
  return jobs


def derive_workload(a):
  """Philly jobs from --trace-start on, durations divided by --duration-factor (clamped to
  [--min-duration, --max-duration]), arrivals compressed so that the GPU-seconds asked for over the
  --arrival-seconds window (each job counted until its end or the window's) are --load times the
  cluster's GPUs; a job of g GPUs is a gang of ceil(g/P)
  pods of min(g, P) GPUs (P = --gpus-per-pod)."""
  jobs = load_philly()
  capacity = 8 * a.nodes
  start = datetime.datetime.fromisoformat(a.trace_start).replace(tzinfo=datetime.timezone.utc).timestamp()
  first = bisect.bisect_left([j[0] for j in jobs], start)
  scaled = lambda d: min(max(d / a.duration_factor, a.min_duration), a.max_duration)
  def offered(factor):  # mean GPUs asked for over the arrival window, with arrivals compressed `factor` times
    # Each job counts until its end or the window's, whichever comes first: the load the window sees.
    return sum(g * min(scaled(d), a.arrival_seconds - (t - start) / factor) for t, d, g, _ in jobs[first:]
               if g <= capacity and (t - start) / factor <= a.arrival_seconds) / a.arrival_seconds
  lo, hi = 1.0, 1e7
  for _ in range(60):  # offered() grows with the factor: bisect for --load times the cluster's GPUs
    mid = math.sqrt(lo * hi)
    lo, hi = (mid, hi) if offered(mid) < a.load * capacity else (lo, mid)
  arrival_factor = hi
  out = []
  for t, d, g, vc in jobs[first:]:
    at = (t - start) / arrival_factor
    if at > a.arrival_seconds:
      break
    if g > capacity:
      continue
    per_pod = min(g, a.gpus_per_pod)
    pods = math.ceil(g / per_pod)
    dur = scaled(d)
    out.append({"job": "j%05d" % len(out), "at": round(at, 3), "pods": pods, "gpus": per_pod,
                "duration": round(dur, 1), "vc": vc})
  meta = {"source": "Microsoft Philly trace, Sep-Oct 2017 (data/philly/philly_jobs_sep_oct_2017.csv)",
          "trace_start": a.trace_start, "trace_hours": round(a.arrival_seconds * arrival_factor / 3600, 1),
          "arrival_factor": round(arrival_factor, 1), "duration_factor": a.duration_factor,
"load": a.load, "jobs": len(out),
          "pods": sum(j["pods"] for j in out), "gpus": sum(j["pods"] * j["gpus"] for j in out),
          "gangs_multi_pod": sum(1 for j in out if j["pods"] > 1), "gpus_per_pod": a.gpus_per_pod}
  return out, meta


# ---------------------------------------------------------------------------------------------- API client
class Api:
  """A tiny Kubernetes client over the kubeconfig's client certificate, one connection per thread."""

  def __init__(self, kubeconfig):
    cfg = json.loads(subprocess.check_output([os.path.join(REPO, ".tools/bin/kubectl"), "config", "view", "--raw",
                                              "-o", "json", "--kubeconfig", kubeconfig]))
    cluster = cfg["clusters"][0]["cluster"]
    user = cfg["users"][0]["user"]
    self.tmp = tempfile.mkdtemp(prefix="cluster-bench-")
    def put(name, data):
      p = os.path.join(self.tmp, name)
      with open(p, "wb") as f:
        f.write(base64.b64decode(data))
      return p
    self.ctx = ssl.create_default_context(cafile=put("ca.crt", cluster["certificate-authority-data"]))
    self.ctx.load_cert_chain(put("tls.crt", user["client-certificate-data"]), put("tls.key", user["client-key-data"]))
    server = cluster["server"].split("//")[1]
    self.host, self.port = server.split(":")[0], int(server.split(":")[1])
    self.local = threading.local()

  def connection(self, timeout=60):
    return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)

  def call(self, method, path, body=None, ok=(200, 201), content_type="application/json"):
    for attempt in range(5):
      c = getattr(self.local, "c", None)
      if c is None:
        c = self.local.c = self.connection()
      try:
        c.request(method, path, body=json.dumps(body) if body is not None else None,
                  headers={"Content-Type": content_type, "Accept": "application/json"})
        r = c.getresponse()
        data = r.read()
      except (OSError, http.client.HTTPException):
        self.local.c = None
        time.sleep(0.2 * (attempt + 1))
        continue
      if r.status == 429 or r.status >= 500:
        time.sleep(0.2 * (attempt + 1))
        continue
      if r.status not in ok:
        raise RuntimeError("%s %s: %d %s" % (method, path, r.status, data[:300]))
      return json.loads(data) if data else None
    raise RuntimeError("%s %s: no answer after 5 attempts" % (method, path))

  def text(self, path):
    c = self.connection()
    try:
      c.request("GET", path, headers={"Accept": "text/plain"})
      r = c.getresponse()
      data = r.read().decode()
      if r.status != 200:
        raise RuntimeError("GET %s: %d %s" % (path, r.status, data[:300]))
      return data
    finally:
      c.close()


# The processes that turn what a user submits into pods (kube-controller-manager's Job controller and the
# job frameworks' controllers): their CPU is reported beside the scheduler side's.
CONTROLLER_PROCESSES = ("kube-controller-manager", "jobset-manager")
SUBMIT_LABELS = {"jobsets": "JobSets"}
WRITE_VERBS = ("POST", "PUT", "PATCH", "DELETE", "APPLY")
# Writes no scheduler makes: KWOK's node heartbeats and every component's leader-election Lease.
NOT_SCHEDULING = ("leases", "nodes")


def request_figures(api):
  """The API server's own counts so far: requests by "VERB resource[/subresource]" (reads too), seconds
  spent serving them (watches aside: they last), watch events sent by kind, and admission webhook and
  plugin seconds.
  They say where the API server's CPU goes beside the writes."""
  figures = {"requests": {}, "request_seconds": {}, "watch_events": {}, "watch_event_bytes": {}, "webhook_seconds": {},
             "admission_plugin_seconds": {}}
  def add(table, key, value):
    figures[table][key] = figures[table].get(key, 0) + value
  for line in api.text("/metrics").splitlines():
    if line.startswith("#") or "{" not in line:
      continue
    name = line[: line.index("{")]
    labels = dict(re.findall(r'(\w+)="([^"]*)"', line[: line.rindex("}")]))
    value = float(line.rsplit(" ", 1)[1])
    key = labels.get("verb", "") + " " + labels.get("resource", "") + ("/" + labels["subresource"] if labels.get("subresource") else "")
    if name == "apiserver_request_total" and not labels.get("dry_run"):
      add("requests", key, value)
    elif name == "apiserver_request_duration_seconds_sum" and labels.get("verb") != "WATCH":
      add("request_seconds", key, value)
    elif name == "apiserver_watch_events_total":
      add("watch_events", labels.get("kind", "") or labels.get("resource", ""), value)
    elif name == "apiserver_watch_events_sizes_sum":
      add("watch_event_bytes", labels.get("kind", "") or labels.get("resource", ""), value)
    elif name == "apiserver_admission_webhook_admission_duration_seconds_sum":
      add("webhook_seconds", labels.get("name", ""), value)
    elif name == "apiserver_admission_controller_admission_duration_seconds_sum":
      add("admission_plugin_seconds", labels.get("name", "") + " " + labels.get("operation", ""), value)
  return figures


def figures_between(before, after):
  """What the API server counted between two request_figures."""
  return {table: {k: round(v - before[table].get(k, 0), 3) for k, v in after[table].items() if v - before[table].get(k, 0) > 0}
          for table in after}


def writes_of(requests):
  """The write requests of a figures_between's "requests"."""
  return {k: v for k, v in requests.items() if k.split(" ")[0] in WRITE_VERBS}


def parallel(fn, items, workers=8):
  q = queue.Queue()
  for it in items:
    q.put(it)
  errors = []
  def work():
    while True:
      try:
        it = q.get_nowait()
      except queue.Empty:
        return
      try:
        fn(it)
      except Exception as e:  # noqa: BLE001 - reported below
        errors.append(e)
  ts = [threading.Thread(target=work) for _ in range(workers)]
  for t in ts:
    t.start()
  for t in ts:
    t.join()
  if errors:
    raise errors[0]


def node_object(i, nodes, dra=False):
  """A KWOK node of 8 GPUs: from the device plugin (nvidia.com/gpu in allocatable), or with `dra` from the DRA
  test driver (tests/support/dra-driver: a ResourceSlice of 8 devices, nothing in allocatable)."""
  name = "node-%05d" % i
  topo = node_topology(i, nodes)
  amounts = {"cpu": "96", "memory": "1024Gi", "pods": "110"}
  if not dra:
    amounts["nvidia.com/gpu"] = "8"
  labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "type": "kwok", POOL_LABEL: "h100",
            "nvidia.com/gpu.product": GPU_PRODUCT, "nvidia.com/gpu.count": "8", "nvidia.com/gpu.memory": "81559",
            "nvidia.com/gpu.family": "hopper"}
  if dra:
    labels["gangplank.test/dra-gpus"] = "8"
  for k, key in TOPOLOGY:
    labels[key] = topo[k]
  return {"apiVersion": "v1", "kind": "Node",
          "metadata": {"name": name, "labels": labels, "annotations": {"kwok.x-k8s.io/node": "fake"}},
          "status": {"capacity": amounts, "allocatable": amounts}}


def pod_object(job, index, system, run_id):
  """The job's index-th pod, shaped by the system's module (systems/README.md)."""
  labels = {RUN_LABEL: run_id, "bench.gangplank.io/job": job["job"], "bench.gangplank.io/job-size": str(job["pods"])}
  annotations = {DURATION_ANNOTATION: "%gs" % job["duration"]}
  g = str(job["gpus"])
  pod = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "%s-%d" % (job["job"], index), "namespace": "bench", "labels": labels,
                      "annotations": annotations},
         "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                  "containers": [{"name": "main", "image": "trainer",
                                  "resources": {"requests": {"cpu": "1", "memory": "4Gi", "nvidia.com/gpu": g},
                                                "limits": {"nvidia.com/gpu": g}}}]}}
  system.shape_pod(pod, job)
  return pod


def jobset_object(job, system, run_id):
  """The job as its users would submit it with JobSet: one replicated Job of `pods` indexed pods, from the
  same pod template; the JobSet controller makes the Job, kube-controller-manager's Job controller its pods."""
  pod = pod_object(job, 0, system, run_id)
  template = {"metadata": {k: pod["metadata"][k] for k in ("labels", "annotations")}, "spec": pod["spec"]}
  n = job["pods"]
  return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
          "metadata": {"name": job["job"], "namespace": "bench", "labels": {RUN_LABEL: run_id}},
          "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {
              "parallelism": n, "completions": n, "completionMode": "Indexed", "backoffLimit": 0,
              "template": template}}}]}}


def job_submission(job, system, run_id, submit):
  """The (path, body) pairs that submit one job: the system's objects and its pods, or one JobSet."""
  if submit == "jobsets":
    return [("/apis/jobset.x-k8s.io/v1alpha2/namespaces/bench/jobsets", jobset_object(job, system, run_id))]
  return system.job_objects(job, run_id) + [("/api/v1/namespaces/bench/pods", pod_object(job, i, system, run_id))
                                            for i in range(job["pods"])]


def result_name(system, submit):
  """The file stem of a system's figures: <system>, or <system>-jobsets when its jobs went in as JobSets."""
  return system if submit == "pods" else "%s-%s" % (system, submit)


def system_module(name):
  """systems/<name with _ for ->.py."""
  return importlib.import_module("systems." + name.replace("-", "_"))


def proc_cpu_seconds(pid):
  try:
    with open("/proc/%d/stat" % pid) as f:
      fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
  except OSError:
    return None


def read_pids(path):
  out = {}
  with open(path) as f:
    for line in f:
      parts = line.split()
      if len(parts) == 2:
        out[parts[1]] = int(parts[0])
  return out


class Watcher(threading.Thread):
  """Watches the run's pods; keeps, per pod, when it was first seen (or its job submitted, for a pod a
  controller makes), first bound, and finished."""

  def __init__(self, api, run_id):
    super().__init__(daemon=True)
    self.api, self.run_id = api, run_id
    self.submitted = {}  # job -> when the benchmark began to write it, where a controller makes its pods
    self.pods = {}
    self.lock = threading.Lock()
    self.stop = False
    self.ready = threading.Event()

  def run(self):
    rv = self.api.call("GET", "/api/v1/namespaces/bench/pods?limit=1")["metadata"]["resourceVersion"]
    while not self.stop:
      c = self.api.connection(timeout=3700)
      c.request("GET", "/api/v1/namespaces/bench/pods?watch=1&timeoutSeconds=3600&resourceVersion=%s&labelSelector=%s%%3D%s"
                % (rv, RUN_LABEL, self.run_id), headers={"Accept": "application/json"})
      r = c.getresponse()
      self.ready.set()
      while not self.stop:
        line = r.readline()
        if not line:
          break
        now = time.time()
        ev = json.loads(line)
        obj = ev["object"]
        if ev["type"] == "ERROR":
          break
        rv = obj["metadata"]["resourceVersion"]
        self.observe(obj, now)
      c.close()

  def observe(self, obj, now):
    md, spec, status = obj["metadata"], obj["spec"], obj.get("status", {})
    name = md["name"]
    with self.lock:
      p = self.pods.get(name)
      if p is None:
        g = int(spec["containers"][0]["resources"]["requests"].get("nvidia.com/gpu", "0"))
        job = md["labels"]["bench.gangplank.io/job"]
        p = self.pods[name] = {"job": job, "size": int(md["labels"]["bench.gangplank.io/job-size"]), "gpus": g,
                               "created": min(now, self.submitted.get(job, now)), "bound": None, "done": None, "node": None,
                               "gated": bool(spec.get("schedulingGates")), "ungated": None}
      if p["gated"] and p["ungated"] is None and not spec.get("schedulingGates"):
        p["ungated"] = now  # the admitting controller (gangplank-operator, Kueue) let it go to the scheduler
      if p["bound"] is None and spec.get("nodeName"):
        p["bound"], p["node"] = now, spec["nodeName"]
      if p["done"] is None and status.get("phase") in ("Succeeded", "Failed"):
        p["done"] = now


def run(a):
  api = Api(a.kubeconfig)
  jobs, meta = derive_workload(a)
  run_id = "%s-%d" % (a.system, int(time.time()))
  if a.submit == "jobsets":
    for job in jobs:
      job["controller"] = "JobSet"  # systems/ shape the pod template for a controller's pods
  system = system_module(a.system)
  say = lambda *m: print("cluster-bench[%s]:" % a.system, *m, file=sys.stderr, flush=True)

  # Nodes, Ready and untainted.
  t0 = time.time()
  parallel(lambda i: api.call("POST", "/api/v1/nodes", node_object(i, a.nodes, a.dra)), range(a.nodes))
  while True:
    items = api.call("GET", "/api/v1/nodes?labelSelector=%s" % POOL_LABEL)["items"]
    is_ready = lambda n: any(c["type"] == "Ready" and c["status"] == "True" for c in n.get("status", {}).get("conditions", []))
    ready = sum(1 for n in items if not n["spec"].get("taints") and is_ready(n))
    if ready == a.nodes:
      break
    # The node lifecycle controller takes its not-ready taint off a node KWOK made Ready, but at its
    # client's 20 requests/s (3.5 min for 1,000 nodes): the benchmark takes it off Ready nodes itself.
    stale = [n["metadata"]["name"] for n in items if is_ready(n) and n["spec"].get("taints") and
             all(t["key"] == "node.kubernetes.io/not-ready" for t in n["spec"]["taints"])]
    parallel(lambda name: api.call("PATCH", "/api/v1/nodes/%s" % name, {"spec": {"taints": None}},
                                   content_type="application/merge-patch+json"), stale)
    if time.time() - t0 > 600:
      raise RuntimeError("only %d of %d nodes Ready and untainted after 600 s" % (ready, a.nodes))
    time.sleep(1)
  say("%d nodes Ready in %.1f s" % (a.nodes, time.time() - t0))
  if a.dra:
    # Every node's GPUs published by the DRA test driver before the first pod arrives.
    while True:
      slices = api.call("GET", "/apis/resource.k8s.io/v1/resourceslices")["items"]
      published = {s["spec"].get("nodeName") for s in slices if s["spec"].get("devices")}
      if len(published) >= a.nodes:
        break
      if time.time() - t0 > 900:
        raise RuntimeError("only %d of %d nodes have ResourceSlices after 900 s" % (len(published), a.nodes))
      time.sleep(1)
    say("%d nodes' GPUs published through DRA in %.1f s" % (a.nodes, time.time() - t0))
  api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bench"}})
  while True:
    try:
      api.call("GET", "/api/v1/namespaces/bench/serviceaccounts/default")
      break
    except RuntimeError:
      time.sleep(0.3)
  system.setup(api, a, say)

  pids = read_pids(a.pids)
  cpu0 = {n: proc_cpu_seconds(p) for n, p in pids.items()}
  api0 = request_figures(api)
  watcher = Watcher(api, run_id)
  watcher.start()
  watcher.ready.wait(30)

  # Submit: each job's pods at its compressed arrival time, by a pool of creating threads.
  work = queue.Queue()
  submit_lag = []
  created, created_lock = [0], threading.Lock()  # objects the benchmark itself wrote
  def creator():
    while True:
      item = work.get()
      if item is None:
        return
      name, objects = item
      if a.submit != "pods":
        watcher.submitted[name] = time.time()
      for path, body in objects:  # one job's objects and pods, in order
        api.call("POST", path, body)
      with created_lock:
        created[0] += len(objects)
  creators = [threading.Thread(target=creator, daemon=True) for _ in range(a.client_threads)]
  for t in creators:
    t.start()
  start = time.time()
  say("submitting %d jobs (%d pods, %d GPUs) over %d s" % (meta["jobs"], meta["pods"], meta["gpus"], a.arrival_seconds))
  for job in jobs:
    delay = start + job["at"] - time.time()
    if delay > 0:
      time.sleep(delay)
    submit_lag.append(max(0.0, -delay))
    work.put((job["job"], job_submission(job, system, run_id, a.submit)))
  for _ in creators:
    work.put(None)
  for t in creators:
    t.join()
  submitted = time.time()
  say("all pods created %.1f s after the start (trace arrivals end at %.1f s)" % (submitted - start, jobs[-1]["at"]))
  # Drain: until every pod is bound, or --drain-seconds pass.
  deadline = time.time() + a.drain_seconds
  total = meta["pods"]
  while time.time() < deadline:
    with watcher.lock:
      bound = sum(1 for p in watcher.pods.values() if p["bound"])
    if bound >= total:
      break
    time.sleep(1)
  end = time.time()
  cpu1 = {n: proc_cpu_seconds(p) for n, p in pids.items()}
  api_figures = figures_between(api0, request_figures(api))
  watcher.stop = True
  with watcher.lock:
    pods = dict(watcher.pods)
  say("%d of %d pods bound at the end (%.1f s after the start)" % (sum(1 for p in pods.values() if p["bound"]), total, end - start))
  cpu = {n: (round(cpu1[n] - cpu0[n], 2) if cpu0.get(n) is not None and cpu1.get(n) is not None else None) for n in pids}
  versions = {"kube": subprocess.run([os.path.join(REPO, ".tools/kube/bin/kube-scheduler"), "--version"],
                                     capture_output=True, text=True).stdout.strip(),
              "kwok": "v0.8.0 (tools/kube-binaries/kwok/go.mod)"}
  versions.update(getattr(system, "VERSIONS", {}))
  topo = {("node-%05d" % i): node_topology(i, a.nodes) for i in range(a.nodes)}
  result = {"system": a.system, "submit": a.submit, "nodes": a.nodes, "dra": a.dra, "meta": meta, "start": start, "submitted": submitted, "end": end,
            "cpu_seconds": cpu, "versions": versions, "pods": pods, "topology": topo,
            "jobs": {j["job"]: j for j in jobs}, "submit_lag_max": round(max(submit_lag or [0]), 2),
            "client": {"qps": a.qps, "burst": a.burst}, "scheduler_processes": system.PROCESSES,
            "api_writes": writes_of(api_figures["requests"]), "api": api_figures,
            "benchmark_writes": created[0]}
  with open(os.path.join(a.out, "%s.json" % result_name(a.system, a.submit)), "w") as f:
    json.dump(result, f)


# ---------------------------------------------------------------------------------------------- figures
def system_label(r):
  """The system's name in the table: with "(JobSets)" when its jobs went in as JobSets."""
  submit = r.get("submit", "pods")
  return r["system"] if submit == "pods" else "%s (%s)" % (r["system"], SUBMIT_LABELS[submit])


def pct(xs, q):
  if not xs:
    return None
  xs = sorted(xs)
  return xs[min(len(xs) - 1, max(0, int(math.ceil(q / 100.0 * len(xs))) - 1))]


def figures(r):
  pods, start, end = r["pods"], r["start"], r["end"]
  capacity = 8 * r["nodes"]
  bound = [p for p in pods.values() if p["bound"]]
  latency = [p["bound"] - p["created"] for p in bound]
  # Pods created behind a scheduling gate: the admitting controller's part and the scheduler's part.
  gated = [p for p in bound if p.get("gated") and p.get("ungated")]
  admit = [p["ungated"] - p["created"] for p in gated]
  schedule = [p["bound"] - p["ungated"] for p in gated]
  binds = sorted(p["bound"] for p in bound)
  # Steady rate: the busiest 10 s of binding; overall: bound pods over first creation to last binding.
  peak = 0
  j = 0
  for i, t in enumerate(binds):
    while binds[j] < t - 10:
      j += 1
    peak = max(peak, i - j + 1)
  first_created = min((p["created"] for p in pods.values()), default=start)
  overall = len(binds) / (binds[-1] - first_created) if binds else 0
  # Gangs (jobs of more than one pod).
  jobs = {}
  for p in pods.values():
    jobs.setdefault(p["job"], []).append(p)
  gang_wait, gangs, whole, one_clique, one_block, multi_node = [], 0, 0, 0, 0, 0
  partial_gpu_seconds = 0.0  # held by gangs never wholly placed: waste
  spread_gpu_seconds = 0.0   # held by members of gangs wholly placed, until the last member was bound
  for name, members in jobs.items():
    size = members[0]["size"]
    if size <= 1:
      continue
    gangs += 1
    complete = len(members) == size and all(m["bound"] for m in members)
    all_bound = max(m["bound"] for m in members) if complete else None
    if complete:
      whole += 1
      gang_wait.append(all_bound - max(m["created"] for m in members))
      nodes = {m["node"] for m in members}
      if len(nodes) > 1:
        multi_node += 1
        one_clique += len({r["topology"][n]["clique"] for n in nodes}) == 1
        one_block += len({r["topology"][n]["block"] for n in nodes}) == 1
    # GPU-seconds held while the gang is not wholly placed: each bound member from its binding until the
    # last member is bound (or it finishes, or the run ends).
    until = all_bound if complete else end
    held = sum(m["gpus"] * (min(until, m["done"] or end) - m["bound"]) for m in members if m["bound"] and m["bound"] < until)
    if complete:
      spread_gpu_seconds += held
    else:
      partial_gpu_seconds += held
  # Allocation over time, per second, and pending demand.
  series = []
  t = math.floor(start)
  sat = []
  while t <= end:
    used = sum(p["gpus"] for p in bound if p["bound"] <= t and (p["done"] is None or p["done"] > t))
    pending = sum(p["gpus"] for p in pods.values() if p["created"] <= t and (p["bound"] is None or p["bound"] > t))
    series.append((round(t - start, 1), used / capacity, pending))
    if pending > capacity - used:
      sat.append(used / capacity)
    t += 1
  cpu = r["cpu_seconds"]
  sched_cpu = sum(cpu.get(n) or 0 for n in r.get("scheduler_processes", ["kube-scheduler"]))
  per_pod = lambda x: x / len(bound) if bound else None
  # Writes beyond the benchmark's own creations (pods, PodGroups, Workloads): the scheduling's, KWOK's pod
  # status, the controller manager's; not node heartbeats or Leases.
  writes = None
  if "api_writes" in r:
    writes = sum(v for k, v in r["api_writes"].items() if k.split(" ")[1].split("/")[0] not in NOT_SCHEDULING)
    writes -= r["benchmark_writes"]
  controllers_cpu = sum(v or 0 for k, v in cpu.items() if k in CONTROLLER_PROCESSES)
  submit = r.get("submit", "pods")
  return {
      "system": system_label(r), "submit": submit,
      "nodes": r["nodes"], "pods": r["meta"]["pods"], "bound": len(bound),
      "bind_p50_s": pct(latency, 50), "bind_p99_s": pct(latency, 99),
      "ungate_p50_s": pct(admit, 50), "ungate_p99_s": pct(admit, 99),
      "ungated_bind_p50_s": pct(schedule, 50), "ungated_bind_p99_s": pct(schedule, 99),
      "peak_pods_per_s": peak / 10.0, "overall_pods_per_s": overall,
      "gangs": gangs, "gangs_whole": whole,
      "gang_wait_p50_s": pct(gang_wait, 50), "gang_wait_p99_s": pct(gang_wait, 99),
      "alloc_saturated": (sum(sat) / len(sat)) if sat else None, "saturated_s": len(sat),
      "alloc_peak": max((s[1] for s in series), default=0),
      "partial_gpu_s": partial_gpu_seconds, "spread_gpu_s": spread_gpu_seconds,
      "multi_node_gangs": multi_node, "in_one_clique": one_clique, "in_one_block": one_block,
      "scheduler_cpu_s": sched_cpu, "controllers_cpu_s": controllers_cpu, "apiserver_cpu_s": cpu.get("kube-apiserver"), "etcd_cpu_s": cpu.get("etcd"),
      "sched_cpu_ms_per_pod": per_pod(sched_cpu * 1000), "apiserver_cpu_ms_per_pod": per_pod((cpu.get("kube-apiserver") or 0) * 1000),
      "writes_per_pod": per_pod(writes) if writes is not None else None,
      "run_s": end - start,
  }, series, latency, gang_wait


def fmt(v, spec="%.2f"):
  return "–" if v is None else (spec % v)


def svg_lines(title, series, xlabel, ylabel, ymax=None, w=640, h=260):
  colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
  xs = [x for _, pts in series for x, _ in pts] or [0, 1]
  ys = [y for _, pts in series for _, y in pts] or [0, 1]
  x0, x1 = min(xs), max(xs) or 1
  y1 = ymax if ymax is not None else (max(ys) or 1)
  L, B, R, T = 50, 35, 10, 25
  sx = lambda x: L + (x - x0) / ((x1 - x0) or 1) * (w - L - R)
  sy = lambda y: h - B - y / y1 * (h - B - T)
  out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (w, h),
         '<text x="%d" y="15" font-weight="bold">%s</text>' % (L, html.escape(title)),
         '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000"/>' % (L, h - B, w - R, h - B),
         '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000"/>' % (L, T, L, h - B),
         '<text x="%d" y="%d">%s</text>' % (w // 2, h - 5, html.escape(xlabel)),
         '<text x="5" y="%d">%s</text>' % (T - 5, html.escape(ylabel))]
  for k in range(5):
    yv = y1 * k / 4
    out.append('<text x="5" y="%.0f">%s</text>' % (sy(yv) + 4, ("%.2f" % yv) if y1 <= 2 else ("%.0f" % yv)))
    xv = x0 + (x1 - x0) * k / 4
    out.append('<text x="%.0f" y="%d">%.0f</text>' % (sx(xv) - 8, h - B + 14, xv))
  for i, (name, pts) in enumerate(series):
    c = colors[i % len(colors)]
    d = " ".join("%.1f,%.1f" % (sx(x), sy(y)) for x, y in pts)
    out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>' % (c, d))
    out.append('<text x="%d" y="%d" fill="%s">%s</text>' % (w - 200, T + 14 * (i + 1), c, html.escape(name)))
  out.append("</svg>")
  return "\n".join(out)


def cdf(xs):
  xs = sorted(xs)
  n = len(xs)
  step = max(1, n // 400)
  return [(x, (i + 1) / n) for i, x in enumerate(xs) if i % step == 0 or i == n - 1]


COLUMNS = [("system", "system", "%s"), ("nodes", "nodes", "%d"), ("pods", "pods", "%d"), ("bound", "bound", "%d"),
           ("bind_p50_s", "create→bind p50 s", "%.2f"), ("bind_p99_s", "create→bind p99 s", "%.2f"),
           ("ungate_p50_s", "create→ungated p50 s", "%.2f"), ("ungate_p99_s", "… p99 s", "%.2f"),
           ("ungated_bind_p50_s", "ungated→bind p50 s", "%.2f"), ("ungated_bind_p99_s", "… p99 s", "%.2f"),
           ("peak_pods_per_s", "bound/s peak 10 s", "%.1f"), ("overall_pods_per_s", "bound/s overall", "%.1f"),
           ("gangs_whole", "gangs whole", "%d"), ("gangs", "gangs", "%d"),
           ("gang_wait_p50_s", "gang last-created→all-bound p50 s", "%.2f"),
           ("gang_wait_p99_s", "… p99 s", "%.2f"), ("alloc_saturated", "GPU alloc at saturation", "%.3f"),
           ("alloc_peak", "GPU alloc peak", "%.3f"), ("partial_gpu_s", "GPU-s held by gangs never whole", "%.0f"),
           ("spread_gpu_s", "GPU-s held while a whole gang's last members bind", "%.1f"),
           ("multi_node_gangs", "multi-node gangs", "%d"), ("in_one_clique", "… in one clique", "%d"),
           ("in_one_block", "… in one block", "%d"), ("scheduler_cpu_s", "scheduler-side CPU s", "%.1f"),
           ("controllers_cpu_s", "job controllers' CPU s", "%.1f"),
           ("apiserver_cpu_s", "kube-apiserver CPU s", "%.1f"),
           ("sched_cpu_ms_per_pod", "scheduler-side CPU ms per bound pod", "%.1f"),
           ("apiserver_cpu_ms_per_pod", "kube-apiserver CPU ms per bound pod", "%.1f"),
           ("writes_per_pod", "API writes per bound pod beyond the submission", "%.2f"), ("run_s", "run s", "%.0f")]


def per_pod_ratios(rows):
  """Each system's cost per bound pod against the stock kube-scheduler's in the same run (issue 37's
  targets: scheduler-side CPU ≤ 1.0×, API-server CPU ≤ 1.1×, API writes ≤ the stock's + 1)."""
  out = []
  for f in rows:
    # Against the stock scheduler's run with the same submission (bare pods, or JobSets).
    stock = next((s for s in rows if s["system"].split(" ")[0] == "kube-scheduler" and s["submit"] == f["submit"]), None)
    if stock is None or f is stock:
      continue
    ratio = lambda k: fmt(f[k] / stock[k], "%.2f×") if f[k] is not None and stock[k] else "–"
    extra = (fmt(f["writes_per_pod"] - stock["writes_per_pod"], "%+.2f")
             if f["writes_per_pod"] is not None and stock["writes_per_pod"] is not None else "–")
    out.append("per bound pod against the stock kube-scheduler, %s: scheduler-side CPU %s, kube-apiserver CPU %s, "
               "API writes %s" % (f["system"], ratio("sched_cpu_ms_per_pod"), ratio("apiserver_cpu_ms_per_pod"), extra))
  return out


def report(a):
  results = []
  for submit in ("pods", "jobsets"):
    for s in a.systems.split(","):
      p = os.path.join(a.out, "%s.json" % result_name(s, submit))
      if os.path.exists(p):
        with open(p) as f:
          results.append(json.load(f))
  if not results:
    sys.exit("cluster-bench report: no <system>.json in %s" % a.out)
  rows, allocs, lats, waits = [], [], [], []
  for r in results:
    f, series, latency, gang_wait = figures(r)
    rows.append(f)
    allocs.append((system_label(r), [(t, u) for t, u, _ in series]))
    lats.append((system_label(r), cdf(latency)))
    waits.append((system_label(r), cdf(gang_wait)))
  meta = results[0]["meta"]
  head = "| " + " | ".join(c[1] for c in COLUMNS) + " |"
  lines = [head, "|" + " --- |" * len(COLUMNS)]
  for f in rows:
    lines.append("| " + " | ".join(fmt(f[k], spec) for k, _, spec in COLUMNS) + " |")
  cpu = "; ".join("%s: %s" % (system_label(r), ", ".join("%s %s" % (k, v) for k, v in sorted(r["cpu_seconds"].items())))
                  for r in results)
  notes = ["workload: %s from %s, %s trace hours; arrivals compressed %s×, durations %s×; %d jobs, %d pods, %d GPUs "
           "(%d multi-pod gangs), offered load %.1f× the %d GPUs; %d GPUs per pod at most"
           % (meta["source"], meta["trace_start"], meta["trace_hours"], meta["arrival_factor"], meta["duration_factor"],
              meta["jobs"], meta["pods"], meta["gpus"], meta["gangs_multi_pod"], meta["load"],
              8 * results[0]["nodes"], meta["gpus_per_pod"]),
           "control plane (and the stock kube-scheduler, where one runs): %s, KWOK %s; client QPS %s / burst %s for every scheduler-side "
           "process (%s)" % (results[0]["versions"]["kube"], results[0]["versions"]["kwok"],
                             results[0]["client"]["qps"], results[0]["client"]["burst"],
                             "; ".join("%s: %s" % (system_label(r), ", ".join(r.get("scheduler_processes", []))) for r in results)),
           "peers: " + (", ".join(sorted({"%s %s" % (k, v) for r in results for k, v in r["versions"].items()
                                           if k not in ("kube", "kwok")})) or "none in this run"),
           "CPU seconds during the run per process: " + cpu]
  notes += per_pod_ratios(rows)
  table = "\n".join(lines)
  print(table)
  for n in notes:
    print("- " + n)
  with open(os.path.join(a.out, "table.md"), "w") as f:
    f.write(table + "\n\n" + "\n".join("- " + n for n in notes) + "\n")
  with open(os.path.join(a.out, "figures.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow([k for k, _, _ in COLUMNS])
    for r in rows:
      w.writerow(["" if r[k] is None else (round(r[k], 4) if isinstance(r[k], float) else r[k]) for k, _, _ in COLUMNS])
  page = ["<!doctype html><html><head><meta charset='utf-8'><title>gangplank cluster benchmark</title>",
          "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}table{border-collapse:collapse;font-size:12px}"
          "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}</style></head><body>",
          "<h1>Side by side on one real control plane (issue 18)</h1><table><tr>"]
  page += ["<th>%s</th>" % html.escape(c[1]) for c in COLUMNS] + ["</tr>"]
  for f in rows:
    page.append("<tr>" + "".join("<td>%s</td>" % html.escape(fmt(f[k], spec)) for k, _, spec in COLUMNS) + "</tr>")
  page.append("</table><ul>" + "".join("<li>%s</li>" % html.escape(n) for n in notes) + "</ul>")
  page.append(svg_lines("GPU allocation over time", allocs, "seconds since the first arrival", "allocated / capacity", ymax=1.0))
  page.append(svg_lines("creation → binding per pod (CDF)", lats, "seconds", "fraction of pods", ymax=1.0))
  page.append(svg_lines("gang: last member created → all bound (CDF)", waits, "seconds", "fraction of gangs", ymax=1.0))
  page.append("</body></html>")
  with open(os.path.join(a.out, "report.html"), "w") as f:
    f.write("\n".join(page))
  print("- written: %s/{table.md,figures.csv,report.html}" % a.out)


def main():
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  sub = p.add_subparsers(dest="cmd", required=True)
  for name in ("workload", "run"):
    s = sub.add_parser(name)
    s.add_argument("--nodes", type=int, default=100)
    s.add_argument("--load", type=float, default=1.2, help="offered GPU load over the cluster's GPUs")
    s.add_argument("--arrival-seconds", type=float, default=120)
    s.add_argument("--duration-factor", type=float, default=20, help="trace durations divided by this")
    s.add_argument("--min-duration", type=float, default=10)
    s.add_argument("--max-duration", type=float, default=600)
    s.add_argument("--gpus-per-pod", type=int, default=4)
    s.add_argument("--trace-start", default="2017-10-03 00:00:00")
    if name == "run":
      s.add_argument("--system", required=True, help="a system of systems/ (kube-scheduler, gangplank, ...)")
      s.add_argument("--kubeconfig", required=True)
      s.add_argument("--pids", required=True)
      s.add_argument("--out", required=True)
      s.add_argument("--drain-seconds", type=float, default=60)
      s.add_argument("--client-threads", type=int, default=6)
      s.add_argument("--qps", type=int, default=50)
      s.add_argument("--burst", type=int, default=100)
      s.add_argument("--dra", action="store_true", help="GPUs from the DRA test driver, not node allocatable")
      s.add_argument("--submit", choices=("pods", "jobsets"), default="pods",
                     help="pods: each job's pods (and the system's objects) as the benchmark writes them; jobsets: "
                          "each job as one JobSet, whose controllers make its pods (needs the JobSet controller)")
  s = sub.add_parser("report")
  s.add_argument("--out", required=True)
  s.add_argument("--systems", default="kube-scheduler,coscheduling,kueue,native-gang,gangplank")
  a = p.parse_args()
  if a.cmd == "workload":
    jobs, meta = derive_workload(a)
    print(json.dumps(meta, indent=1))
    sizes = {}
    for j in jobs:
      sizes[(j["pods"], j["gpus"])] = sizes.get((j["pods"], j["gpus"]), 0) + 1
    print("jobs by (pods, GPUs per pod):", dict(sorted(sizes.items())))
  elif a.cmd == "run":
    run(a)
  else:
    report(a)


if __name__ == "__main__":
  main()
