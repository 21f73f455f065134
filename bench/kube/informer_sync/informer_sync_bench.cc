// Informer sync cost versus plain download, and watch decode throughput versus raw framing.
//
// Both against the real kube-apiserver of scripts/real-cluster.sh --no-gangplank (started once by this
// binary, on loopback), seeded over the API by eight clients at once.
//
// InformerSync: N nodes and M pods (bound to those nodes; no kubelet, so the pods carry no status). In
// one run we (1) download every page of both lists with the same client and page size the informer
// uses and throw the bytes away, (2) sync a node informer and a pod informer (with node and gang
// indexes) and measure time and resident memory, (3) download again. Ratio = informer time / mean
// download time. Bytes per cached pod = RSS growth while the pod informer syncs / M (after malloc_trim
// on both sides).
//
// WatchThroughput: K pod creations replayed to a watch from the resourceVersion before them (the watch
// cache keeps them); the same stream is consumed by raw line framing only (baseline) and by framing +
// typed decoding.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "kube/client.h"
#include "kube/config.h"
#include "kube/informer.h"
#include "kube/list_watch.h"
#include "tests/real-cluster/support/control_plane.h"

namespace gangplank::kube {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);  // NOLINT: read-only configuration
  return v ? std::stol(v) : fallback;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

long rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// Bytes currently handed out by malloc (all arenas), to tell real usage from fragmentation.
long heap_in_use() {
  struct mallinfo2 info = mallinfo2();
  return static_cast<long>(info.uordblks + info.hblkhd);
}

long peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss * 1024;
}

Json make_node(int i) {
  std::string name = "gpu-node-" + std::to_string(i);
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels",
             {{"kubernetes.io/hostname", name},
              {"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
              {"topology.kubernetes.io/zone", "zone-" + std::to_string(i % 4)},
              {"gangplank.io/rack", "rack-" + std::to_string(i / 32)},
              {"gangplank.io/block", "block-" + std::to_string(i / 256)},
              {"node.kubernetes.io/instance-type", "p5.48xlarge"}}},
            {"annotations", {{"node.alpha.kubernetes.io/ttl", "0"}, {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}}}}},
          {"spec",
           {{"providerID", "aws:///us-east-1a/i-0" + std::to_string(100000 + i)},
            {"taints", {{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}}}}},
          {"status",
           {{"capacity", {{"cpu", "192"}, {"memory", "2097152Mi"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}}},
            {"allocatable", {{"cpu", "191500m"}, {"memory", "2090000Mi"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}}},
            {"conditions",
             {{{"type", "MemoryPressure"}, {"status", "False"}, {"reason", "KubeletHasSufficientMemory"}},
              {{"type", "DiskPressure"}, {"status", "False"}, {"reason", "KubeletHasNoDiskPressure"}},
              {{"type", "PIDPressure"}, {"status", "False"}, {"reason", "KubeletHasSufficientPID"}},
              {{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}, {"message", "kubelet is posting ready status"}}}},
            {"addresses", {{{"type", "InternalIP"}, {"address", "10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250)}},
                           {{"type", "Hostname"}, {"address", name}}}},
            {"nodeInfo",
             {{"kubeletVersion", "v1.31.9"}, {"containerRuntimeVersion", "containerd://1.7.27"}, {"osImage", "Ubuntu 22.04.5 LTS"},
              {"kernelVersion", "6.8.0-1021-aws"}, {"architecture", "amd64"}, {"operatingSystem", "linux"}}}}}};
}

Json make_pod(int i, int nodes) {
  int gang = i / 8;
  std::string name = "train-" + std::to_string(gang) + "-worker-" + std::to_string(i % 8);
  std::string ns = "team-" + std::to_string(gang % 20);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"labels",
             {{"app", "trainer"},
              {"gangplank.io/gang", "train-" + std::to_string(gang)},
              {"gangplank.io/queue", "queue-" + std::to_string(gang % 7)},
              {"batch.kubernetes.io/job-name", "train-" + std::to_string(gang)},
              {"controller-uid", "c0ffee00-0000-4000-8000-" + std::to_string(100000000000LL + gang)}}},
            {"annotations", {{"gangplank.io/min-members", "8"}, {"gangplank.io/topology", "rack"}}},
            {"ownerReferences",
             {{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"name", "train-" + std::to_string(gang)},
               {"uid", "c0ffee00-0000-4000-8000-" + std::to_string(100000000000LL + gang)}, {"controller", true},
               {"blockOwnerDeletion", true}}}}}},
          {"spec",
           {{"schedulerName", "gangplank"},
            {"nodeName", "gpu-node-" + std::to_string(i % nodes)},
            {"priorityClassName", "training"},
            {"restartPolicy", "Never"},
            {"tolerations", {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}},
            {"containers",
             {{{"name", "trainer"},
               {"image", "registry.example.com/ml/trainer:2026.11.3"},
               {"command", {"python", "-m", "train", "--config", "/etc/train/config.yaml"}},
               {"env", {{{"name", "WORLD_SIZE"}, {"value", "8"}}, {{"name", "RANK"}, {"value", std::to_string(i % 8)}}}},
               {"resources",
                {{"requests", {{"cpu", "22"}, {"memory", "240Gi"}, {"nvidia.com/gpu", "1"}}},
                 {"limits", {{"memory", "240Gi"}, {"nvidia.com/gpu", "1"}}}}},
               {"volumeMounts", {{{"name", "config"}, {"mountPath", "/etc/train"}}}}}}},
            {"volumes", {{{"name", "config"}, {"configMap", {{"name", "train-config"}}}}}}}},
          {"status",
           {{"phase", "Running"},
            {"hostIP", "10.0.0.1"},
            {"podIP", "10.1." + std::to_string(i / 250 % 250) + "." + std::to_string(i % 250)},
            {"startTime", "2026-11-21T10:00:00Z"},
            {"conditions",
             {{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", "2026-11-21T10:00:00Z"}},
              {{"type", "Initialized"}, {"status", "True"}, {"lastTransitionTime", "2026-11-21T10:00:01Z"}},
              {{"type", "ContainersReady"}, {"status", "True"}, {"lastTransitionTime", "2026-11-21T10:00:09Z"}},
              {{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", "2026-11-21T10:00:09Z"}}}},
            {"containerStatuses",
             {{{"name", "trainer"}, {"ready", true}, {"restartCount", 0},
               {"image", "registry.example.com/ml/trainer:2026.11.3"},
               {"containerID", "containerd://" + std::string(40, 'a')},
               {"state", {{"running", {{"startedAt", "2026-11-21T10:00:08Z"}}}}}}}}}}};
}

// The binary's control plane: started on first use, stopped when the binary ends.
real_cluster::ControlPlane& Plane() {
  static real_cluster::ControlPlane plane;
  if (!plane.running()) {
    const std::string why = real_cluster::ControlPlane::UnavailableReason();
    if (!why.empty()) throw std::runtime_error("the real control plane cannot run here: " + why);
    const std::string error = plane.Start({"--no-gangplank"});
    if (!error.empty()) throw std::runtime_error("the real control plane did not start: " + error);
  }
  return plane;
}

std::shared_ptr<RestClient> AdminRest() {
  static const ClusterConfig config = LoadKubeconfig({Plane().kubeconfig()});  // Read once, before any worker.
  RestOptions options;
  options.qps = 0;
  options.request_timeout = 120s;
  return std::make_shared<RestClient>(config, options);
}

// Creates objects[i] for every i, from `clients` clients at once.
void CreateAll(const ResourceDescriptor& resource, int count, const std::function<Json(int)>& object, int clients = 8) {
  std::vector<std::thread> workers;
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  for (int w = 0; w < clients; ++w) {
    workers.emplace_back([&] {
      Client client(AdminRest());
      for (int i = next++; i < count && !failed; i = next++) {
        const Json o = object(i);
        try {
          client.Create(resource, o["metadata"].value("namespace", ""), o);
        } catch (const std::exception& e) {
          std::cerr << "seeding failed: " << e.what() << "\n";
          failed = true;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  if (failed) throw std::runtime_error("seeding the API server failed");
}

// The namespaces and PriorityClass the pods name, once.
void SeedNamespaces() {
  static bool done = false;
  if (done) return;
  CreateAll(resources::Namespaces(), 20, [](int t) {
    return Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team-" + std::to_string(t)}}}};
  });
  const ResourceDescriptor priority_classes{"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false};
  Client(AdminRest()).Create(priority_classes, "", Json{{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"},
                                                        {"metadata", {{"name", "training"}}}, {"value", 1000}});
  done = true;
}

// Pages through a list with the informer's options, discarding bodies. Returns bytes downloaded.
size_t plain_download(RestClient& rest, const ResourceDescriptor& resource) {
  ListOptions options;
  options.limit = 500;
  options.resource_version = "0";
  size_t bytes = 0;
  ListPages(rest, resource, "", options, [&](std::string_view body) {
    bytes += body.size();
    // Only the continue token is needed to page on; find it without decoding items.
    ListMetaInfo meta;
    auto pos = body.rfind("\"continue\":\"");
    if (pos != std::string_view::npos) {
      auto start = pos + 12;
      meta.continue_token = std::string(body.substr(start, body.find('"', start) - start));
    }
    return meta;
  });
  return bytes;
}

void BM_InformerSync(benchmark::State& state) {
  const int nodes = static_cast<int>(env_long("GANGPLANK_BENCH_NODES", 1000));
  const int pods = static_cast<int>(env_long("GANGPLANK_BENCH_PODS", 10000));
  auto seed_start = Clock::now();
  SeedNamespaces();
  CreateAll(resources::Nodes(), nodes, make_node);
  CreateAll(resources::Pods(), pods, [nodes](int i) { return make_pod(i, nodes); });
  std::cout << "seeded kube-apiserver with " << nodes << " nodes and " << pods << " pods in " << seconds_since(seed_start)
            << " s\n";
  auto rest = AdminRest();
  for (auto _ : state) {
    auto t0 = Clock::now();
    size_t bytes = plain_download(*rest, resources::Nodes()) + plain_download(*rest, resources::Pods());
    double download1 = seconds_since(t0);

    InformerOptions io;
    malloc_trim(0);
    long rss_before = rss_bytes();
    auto t1 = Clock::now();
    Informer<Node> node_informer(rest, resources::Nodes(), io);
    Informer<Pod> pod_informer(rest, resources::Pods(), io);
    pod_informer.AddIndex("node", indexes::PodNodeName);
    pod_informer.AddIndex("gang", [](const Pod& p) { return indexes::ByLabel(p, "gangplank.io/gang"); });
    node_informer.Start();
    if (!node_informer.WaitForSync(300s)) state.SkipWithError("node informer did not sync");
    double node_sync = seconds_since(t1);
    node_informer.WaitIdle(60s);
    malloc_trim(0);
    long rss_nodes = rss_bytes();
    long heap_nodes = heap_in_use();
    auto t2 = Clock::now();
    pod_informer.Start();
    if (!pod_informer.WaitForSync(300s)) state.SkipWithError("pod informer did not sync");
    double pod_sync = seconds_since(t2);
    double informer_total = seconds_since(t1);
    pod_informer.WaitIdle(60s);  // steady state: no notification still queued
    malloc_trim(0);
    long rss_pods = rss_bytes();
    long heap_pods = heap_in_use();
    if (pod_informer.size() != static_cast<size_t>(pods) || node_informer.size() != static_cast<size_t>(nodes)) {
      state.SkipWithError("informer caches incomplete");
    }

    auto t3 = Clock::now();
    plain_download(*rest, resources::Nodes());
    plain_download(*rest, resources::Pods());
    double download2 = seconds_since(t3);
    double download = (download1 + download2) / 2;

    state.counters["MB"] = static_cast<double>(bytes) / 1e6;
    state.counters["download_s"] = download;
    state.counters["informer_s"] = informer_total;
    state.counters["ratio"] = informer_total / download;
    state.counters["node_sync_s"] = node_sync;
    state.counters["pod_sync_s"] = pod_sync;
    state.counters["B_per_node"] = static_cast<double>(rss_nodes - rss_before) / nodes;
    state.counters["B_per_pod"] = static_cast<double>(rss_pods - rss_nodes) / pods;
    state.counters["heap_B_per_pod"] = static_cast<double>(heap_pods - heap_nodes) / pods;
    state.counters["peak_rss_MB"] = static_cast<double>(peak_rss_bytes()) / 1e6;
    std::cout << "bytes=" << bytes << " download_s=" << download1 << "/" << download2 << " informer_s=" << informer_total
              << " (nodes " << node_sync << ", pods " << pod_sync << ") ratio=" << informer_total / download
              << " bytes_per_pod=" << static_cast<double>(rss_pods - rss_nodes) / pods
              << " heap_bytes_per_pod=" << static_cast<double>(heap_pods - heap_nodes) / pods << " sizeof(Pod)=" << sizeof(Pod)
              << " peak_rss_MB=" << static_cast<double>(peak_rss_bytes()) / 1e6 << "\n";
    node_informer.Stop();
    pod_informer.Stop();
  }
}
BENCHMARK(BM_InformerSync)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// Replays `events` pod creations to a watch started from an old resourceVersion. Every pod is distinct:
// re-putting an identical pod is a no-op write that emits no event.
void BM_WatchThroughput(benchmark::State& state) {
  const int events = static_cast<int>(env_long("GANGPLANK_BENCH_WATCH_EVENTS", 5000));
  SeedNamespaces();
  auto admin = AdminRest();
  const std::string from_rv = Client(admin).List(resources::Namespaces(), "")["metadata"]["resourceVersion"];
  // Names of their own (the sync benchmark may have made train-*): a pod per event.
  CreateAll(resources::Pods(), events, [](int i) {
    Json pod = make_pod(i, 100);
    pod["metadata"]["name"] = "watched-" + std::to_string(i);
    return pod;
  });
  RestClient& rest = *admin;
  ListOptions watch;
  watch.resource_version = from_rv;
  watch.timeout_seconds = 60;
  auto consume = [&](const std::function<void(std::string_view)>& on_line) {
    net::CancelToken cancel;
    int seen = 0;
    auto start = Clock::now();
    try {
      WatchLines(rest, resources::Pods(), "", watch, 10s, [&](std::string_view line) {
        on_line(line);
        if (++seen >= events) cancel.cancel();  // The last line or two may still come before the cancel.
      }, cancel);
    } catch (const net::TransportError& e) {
      if (e.kind() != net::TransportError::Kind::kCancelled) throw;
    }
    if (seen < events) throw std::runtime_error("watch ended after " + std::to_string(seen) + " events");
    return seconds_since(start);
  };
  for (auto _ : state) {
    size_t bytes = 0;
    double raw = consume([&](std::string_view line) { bytes += line.size(); });
    ObjectDecoder<Pod> decoder;
    size_t checksum = 0;
    double decoded = consume([&](std::string_view line) { checksum += decoder.DecodeEvent(line).object.meta.name.size(); });
    benchmark::DoNotOptimize(checksum);
    state.counters["events"] = events;
    state.counters["raw_events_per_s"] = events / raw;
    state.counters["decoded_events_per_s"] = events / decoded;
    state.counters["decode_overhead"] = decoded / raw;
    state.counters["MB"] = static_cast<double>(bytes) / 1e6;
    std::cout << "watch: " << events << " events, " << bytes / 1e6 << " MB: raw " << events / raw << " ev/s, decoded "
              << events / decoded << " ev/s\n";
  }
}
BENCHMARK(BM_WatchThroughput)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace gangplank::kube

BENCHMARK_MAIN();
