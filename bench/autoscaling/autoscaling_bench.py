#!/usr/bin/env python3
"""Gangs on an empty autoscaled pool, on a real control plane with Karpenter (bench/autoscaling/run.sh).

run: makes one NodePool of 8-GPU KWOK nodes (cliques c0..c3, at most --limit-gpus GPUs), submits --gangs
gangs of --size pods of 8 GPUs at once, and samples pods, nodes and NodeClaims every second for --window
seconds. For gangplank the pods are a gang's (gang label and size, its scheduler) in an autoscaled GPUPool;
for kube-scheduler they are plain pods of the default scheduler, as its users submit them.
table: the figures of each run side by side.

Figures per run:
  gangs whole      gangs with every member bound by the end, and the seconds from creation to the last
                   member bound (median and largest over those gangs)
  nodes            distinct nodes the autoscaler added, against the least that holds the gangs that could
                   run whole (limit permitting)
  GPU-h idle       GPU-hours of added nodes' GPUs holding no pod, over the window
  GPU-h stranded   GPU-hours of GPUs held by pods of gangs not whole at that moment (bound, waiting for the
                   rest: the stock path's partial provisioning)
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

NAMESPACE = "bench"
GPUS_PER_NODE = 8


def kubectl(kubeconfig, *args, stdin=None):
    out = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, *args], input=stdin, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"kubectl {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout


def apply(kubeconfig, obj):
    kubectl(kubeconfig, "apply", "--server-side", "-f", "-", stdin=json.dumps(obj))


def node_pool(limit_gpus):
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "bench"},
            "spec": {"template": {"metadata": {"labels": {"bench.gangplank.io/pool": "gpu"}},
                                  "spec": {"nodeClassRef": {"group": "karpenter.kwok.sh", "kind": "KWOKNodeClass",
                                                            "name": "default"},
                                           "expireAfter": "Never",
                                           "requirements": [{"key": "gangplank.io/clique", "operator": "In",
                                                             "values": ["c0", "c1", "c2", "c3"]}]}},
                     "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "30s"},
                     "limits": {"nvidia.com/gpu": str(limit_gpus)}}}


def gangplank_objects(timeout):
    pool = {"apiVersion": "gangplank.io/v1alpha1", "kind": "GPUPool", "metadata": {"name": "bench"},
            "spec": {"nodeSelector": {"bench.gangplank.io/pool": "gpu"},
                     "topologyLevels": ["topology.kubernetes.io/zone", "gangplank.io/clique", "kubernetes.io/hostname"],
                     "autoscaling": {"enabled": True, "domainLabel": "gangplank.io/clique",
                                     "domains": ["c0", "c1", "c2", "c3"],
                                     "nodeSelector": {"karpenter.sh/nodepool": "bench"},
                                     "provisionTimeoutSeconds": timeout}}}
    queue = {"apiVersion": "gangplank.io/v1alpha1", "kind": "Queue", "metadata": {"name": "bench"},
             "spec": {"namespaces": [NAMESPACE]}}
    return [pool, queue]


def pod(system, gang, member, size):
    meta = {"name": f"{gang}-{member}", "namespace": NAMESPACE, "labels": {"bench.gangplank.io/gang": gang}}
    spec = {"containers": [{"name": "c", "image": "pause", "resources": {"limits": {"nvidia.com/gpu": "8"}}}],
            "terminationGracePeriodSeconds": 0}
    if system == "gangplank":
        meta["labels"].update({"gangplank.io/gang": gang, "gangplank.io/queue": "bench"})
        meta["annotations"] = {"gangplank.io/gang-size": str(size)}
        spec["schedulerName"] = "gangplank"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def sample(kubeconfig):
    pods = json.loads(kubectl(kubeconfig, "get", "pods", "-n", NAMESPACE, "-o", "json"))["items"]
    nodes = json.loads(kubectl(kubeconfig, "get", "nodes", "-l", "karpenter.sh/nodepool=bench", "-o", "json"))["items"]
    bound = {p["metadata"]["name"]: p["spec"].get("nodeName", "") for p in pods}
    return bound, [n["metadata"]["name"] for n in nodes]


def run(args):
    apply(args.kubeconfig, node_pool(args.limit_gpus))
    kubectl(args.kubeconfig, "create", "namespace", NAMESPACE)
    if args.system == "gangplank":
        for obj in gangplank_objects(args.provision_timeout):
            apply(args.kubeconfig, obj)
    gangs = [f"g{i}" for i in range(args.gangs)]
    items = [pod(args.system, g, m, args.size) for g in gangs for m in range(args.size)]
    start = time.time()
    kubectl(args.kubeconfig, "create", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    first_bound, whole_at, seen_nodes = {}, {}, set()
    idle_gpu_s = stranded_gpu_s = 0.0
    last = time.time()
    while time.time() - start < args.window:
        bound, nodes = sample(args.kubeconfig)
        now = time.time()
        dt, last = now - last, now
        seen_nodes.update(nodes)
        for name, node in bound.items():
            if node and name not in first_bound:
                first_bound[name] = now - start
        members = {g: [bound.get(f"{g}-{m}", "") for m in range(args.size)] for g in gangs}
        used = sum(1 for n in bound.values() if n) * GPUS_PER_NODE
        idle_gpu_s += max(0, len(nodes) * GPUS_PER_NODE - used) * dt
        for g, where in members.items():
            if all(where):
                whole_at.setdefault(g, max(first_bound[f"{g}-{m}"] for m in range(args.size)))
            else:
                stranded_gpu_s += sum(1 for n in where if n) * GPUS_PER_NODE * dt
        time.sleep(1)
    runnable = min(args.gangs, args.limit_gpus // GPUS_PER_NODE // args.size)
    result = {"system": args.system, "gangs": args.gangs, "size": args.size, "limit_gpus": args.limit_gpus,
              "window_s": args.window, "gangs_whole": len(whole_at),
              "whole_s": sorted(whole_at.values()), "nodes_added": len(seen_nodes),
              "nodes_needed": runnable * args.size, "idle_gpu_h": idle_gpu_s / 3600,
              "stranded_gpu_h": stranded_gpu_s / 3600}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result))


def table(args):
    rows = ["| system | scenario | gangs whole | creation to whole, median / largest s | nodes added / least needed | "
            "GPU-h idle | GPU-h stranded in part-placed gangs |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for path in args.results:
        with open(path) as f:
            r = json.load(f)
        whole = r["whole_s"]
        times = f"{statistics.median(whole):.1f} / {max(whole):.1f}" if whole else "–"
        scenario = f"{r['gangs']} x {r['size']} x 8 GPUs, limit {r['limit_gpus']} GPUs, {r['window_s']} s"
        rows.append(f"| {r['system']} | {scenario} | {r['gangs_whole']} of {r['gangs']} | {times} | "
                    f"{r['nodes_added']} / {r['nodes_needed']} | {r['idle_gpu_h']:.3f} | {r['stranded_gpu_h']:.3f} |")
    print("\n".join(rows))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="one system on a running control plane")
    r.add_argument("--kubeconfig", required=True)
    r.add_argument("--system", choices=["kube-scheduler", "gangplank"], required=True)
    r.add_argument("--gangs", type=int, default=3)
    r.add_argument("--size", type=int, default=4)
    r.add_argument("--limit-gpus", type=int, default=256)
    r.add_argument("--window", type=int, default=120)
    r.add_argument("--provision-timeout", type=int, default=30)
    r.add_argument("--out", required=True)
    t = sub.add_parser("table", help="the runs' figures side by side")
    t.add_argument("results", nargs="+")
    args = parser.parse_args()
    run(args) if args.command == "run" else table(args)


if __name__ == "__main__":
    sys.exit(main())
