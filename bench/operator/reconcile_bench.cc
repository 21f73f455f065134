// One pod event reconciled by the operator, at 5,000 nodes / 100,000 pods / 1,000 waiting gangs, against
// a full admission round in the same run (the target: an event at least 20x cheaper).
// GANGPLANK_BENCH_NODES sets another size (pods: 20 a node; the waiting gangs stay 1,000), for how the
// operator's cost grows with the cluster (issue 37).
//
// The pool: 5,000 nodes of 8 GPUs in four topology levels (zone > block > rack > node), ~70% of the GPUs
// held by ~12,000 gangplank pods (lone pods and gangs of 2-4) and 88,000 other pods (CPU only, another
// scheduler's) for 100,000 pods in all; 1,000 gated gangs waiting in 7 queues (half single pods of 1-8
// GPUs, 40% 2-4 x 8-GPU gangs, 10% 8 x 8-GPU gangs). The real Reconciler, GangTracker, cluster state and
// engine; an in-memory ClusterWriter (writes succeed, nothing crosses a network), so the figures are the
// operator's own work. Per event: the informer handlers' work (tracker, cluster state) plus the
// reconcile it causes. Prints medians and p99 and the ratio to the full round's median.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "cache/objects/conventions.h"
#include "engine/random.h"
#include "operator/admission/reconciler.h"

namespace gangplank::op {
namespace {

using Clock = std::chrono::steady_clock;

// CPU time of this thread in milliseconds: what one event costs the operator, whatever else the shared
// machine runs meanwhile (wall-clock p99 on two busy cores mostly measures the neighbours).
double ThreadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}
constexpr int kWaiting = 1000;
constexpr int kQueues = 8;
constexpr double kNow = 1'800'000'000;

// Writes succeed in memory: every write bumps the resourceVersion and hands the pod back.
class MemoryWriter : public ClusterWriter {
 public:
  bool refuse = false;  // Every plan fails its precondition: the round's decision is never applied.

  cache::PodInfo PlanPod(const cache::PodInfo& pod, const std::string& node, const std::string& id) override {
    if (refuse) throw PodChanged("refused by the benchmark");
    cache::PodInfo p = pod;
    p.annotations[std::string(cache::kPlannedNodeAnnotation)] = node;
    p.annotations[std::string(cache::kAdmissionIdAnnotation)] = id;
    return Bump(p);
  }
  cache::PodInfo UnplanPod(const cache::PodInfo& pod) override {
    cache::PodInfo p = pod;
    p.annotations.erase(std::string(cache::kPlannedNodeAnnotation));
    p.annotations.erase(std::string(cache::kAdmissionIdAnnotation));
    return Bump(p);
  }
  cache::PodInfo ReleasePod(const cache::PodInfo& pod) override {
    cache::PodInfo p = pod;
    p.scheduling_gates.clear();
    return Bump(p);
  }
  std::optional<cache::PodInfo> ReadPod(const std::string&, const std::string&) override { return std::nullopt; }
  cache::PodInfo AnnotatePod(const cache::PodInfo& pod, const AnnotationEdits& edits) override {
    cache::PodInfo p = pod;
    ApplyAnnotationEdits(p, edits);
    return Bump(p);
  }
  EvictResult EvictPod(const cache::PodInfo&, std::optional<int>) override { return EvictResult::kEvicted; }
  EvictResult DeletePod(const cache::PodInfo&, int) override { return EvictResult::kEvicted; }
  cache::PodInfo CreatePod(const nlohmann::json&) override { return {}; }
  std::vector<nlohmann::json> DisruptionBudgets(const std::string&) override { return {}; }
  void SetPodCondition(const cache::PodInfo&, const ConditionWrite&) override {}
  void SetPodGroupCondition(const std::string&, const std::string&, const ConditionWrite&) override {}
  void RecordEvent(const EventWrite&) override {}
  bool WriteStatus(const std::string&, const std::string&, const nlohmann::json&, const std::vector<ConditionWrite>&) override {
    return true;
  }

 private:
  static cache::PodInfo Bump(cache::PodInfo p) {
    p.resource_version = std::to_string(std::stoll(p.resource_version) + 1);
    return p;
  }
};

class NoReader : public ObjectReader {
 public:
  std::optional<nlohmann::json> Get(const std::string&, const std::string&, const std::string&, const std::string&) override {
    return std::nullopt;
  }
};

std::string Name(const char* prefix, int i) {
  std::string s(prefix);
  s.append(std::to_string(i));
  return s;
}

cache::NodeInfo NodeOf(int i) {
  const int rack = i / 16, block = rack / 8, zone = block / 10;
  cache::NodeInfo n;
  n.name = Name("node-", i);
  n.labels = {{"zone", Name("z", zone)}, {"block", Name("b", block)}, {"rack", Name("r", rack)},
              {"kubernetes.io/hostname", n.name}, {"nvidia.com/gpu.product", "H100"}};
  n.allocatable = {{"cpu", "192"}, {"memory", "2048Gi"}, {"nvidia.com/gpu", "8"}};
  return n;
}

cache::PodInfo PodOf(const std::string& name, int gpus, const std::string& queue, const std::string& gang, int size) {
  cache::PodInfo p;
  p.name = name;
  p.namespace_ = "ml";
  p.uid = "uid-" + name;
  p.resource_version = "1";
  p.creation_timestamp = "2027-01-15T00:00:00Z";
  p.scheduler_name = "gangplank";
  p.phase = "Pending";
  if (!queue.empty()) p.labels[std::string(cache::kQueueLabel)] = queue;
  if (!gang.empty()) {
    p.labels[std::string(cache::kGangLabel)] = gang;
    p.annotations[std::string(cache::kGangSizeAnnotation)] = std::to_string(size);
  }
  cache::ContainerResources c;
  c.requests = {{"cpu", std::to_string(gpus > 0 ? 4 * gpus : 1)}, {"memory", std::to_string(gpus > 0 ? 16 * gpus : 1) + "Gi"}};
  if (gpus > 0) c.requests.emplace_back("nvidia.com/gpu", std::to_string(gpus));
  p.containers.push_back(std::move(c));
  return p;
}

// The pool's size: nodes, and all pods on them (gangplank's and others').
struct Scale {
  int nodes = 5000;
  int pods = 100000;
};

Scale ScaleFromEnvironment() {
  Scale scale;
  if (const char* nodes = std::getenv("GANGPLANK_BENCH_NODES"); nodes != nullptr && std::atoi(nodes) >= 100) {
    scale.nodes = std::atoi(nodes);
    scale.pods = 20 * scale.nodes;
  }
  return scale;
}

struct Bench {
  Scale scale;
  MemoryWriter writer;
  NoReader reader;
  GangTracker tracker{{"gangplank"}};
  UngovernedPods ungoverned;
  GangSizeResolver sizes{reader};
  double now = kNow;
  GangConditions conditions{writer, [this] { return now; }, 1e9};
  MemberFaults member_faults;
  std::unique_ptr<PoolModel> model;
  std::unique_ptr<Reconciler> reconciler;
  ReconcileContext context;
  int serial = 0;
  int running_pods = 0;  // Gangplank's running pods were made as run-0 .. run-<running_pods - 1>.
  int full_rounds = 0;  // Among measured events: rounds the engine ran in full (NeedsFullRound).
  std::vector<double> engine_ms;  // Time inside the engine's round, per reconcile.

  explicit Bench(Scale s) : scale(s) {
    cache::PoolConfig pool;
    pool.name = "pool";
    pool.topology_levels = {"zone", "block", "rack", "kubernetes.io/hostname"};
    pool.admission.reserve_after_seconds = 0;  // Keep rounds comparable: no reservations, no reclaim.
    pool.preemption.reclaim = false;
    model = std::make_unique<PoolModel>(pool, [](const engine::NodeSpec&) { return true; });
    ReconcilerOptions options;
    options.policy = "bestfit";
    options.max_staleness_seconds = 1e12;  // Full rounds only when asked for.
    options.status_interval_seconds = 1e12;
    reconciler = std::make_unique<Reconciler>(tracker, sizes, writer, conditions, nullptr, member_faults, options);
    std::vector<cache::QueueConfig> queues;
    for (int q = 0; q < kQueues; ++q) {
      cache::QueueConfig c = cache::UniformQueue(Name("q", q), 500 * (q % 2));
      c.weight = 1 + q % 3;
      queues.push_back(c);
    }
    context.tree = std::make_shared<QueueTree>(BuildQueueTree(queues));
    context.pools = {pool};
    context.namespace_queue = [](const std::string&) { return std::string(); };
    context.ungoverned = &ungoverned;
    Populate();
  }

  // The controller's pod handler: the tracker, the ungoverned GPU pods (controller.cc OnPod), the state.
  void Add(const cache::PodInfo& pod) {
    for (const std::string& key : tracker.Upsert(pod)) model->NoteGang(key);
    if (const std::string ns = ungoverned.Observe(pod, false, tracker.Manages(pod)); !ns.empty()) {
      model->NoteGang(UngovernedKey(ns));
    }
    model->state().UpsertPod(pod);
  }

  // The controller's pod handler for a pod that went (Add's counterpart).
  void Delete(const cache::PodInfo& pod) {
    for (const std::string& key : tracker.Remove(pod.uid)) model->NoteGang(key);
    ungoverned.Observe(pod, true, true);
    model->state().DeletePod(pod.uid);
  }

  void Populate() {
    for (int i = 0; i < scale.nodes; ++i) model->state().UpsertNode(NodeOf(i));
    engine::Rng rng(42);
    int pods = 0;
    // Running gangplank pods: about 70% of the GPUs, lone pods and small gangs of 1- to 4-GPU pods.
    for (int n = 0; n < scale.nodes; ++n) {
      int free = 8;
      const std::uint64_t kind = rng.Below(100);
      const int target = kind < 33 ? 8 : kind < 90 ? static_cast<int>(rng.Below(7)) : 0;
      while (8 - free < target) {
        const int gpus = std::min(free, 1 << rng.Below(3));
        cache::PodInfo p = PodOf(Name("run-", pods), gpus, Name("q", rng.Below(10) < 7 ? 0 : static_cast<int>(rng.Below(kQueues))), "", 0);
        p.node_name = Name("node-", n);
        p.phase = "Running";
        p.annotations[std::string(cache::kAdmissionIdAnnotation)] = "1799990000-0";
        Add(p);
        free -= gpus;
        ++pods;
      }
    }
    const int gangplank_pods = pods;
    // Everything else: CPU-only pods of another scheduler, spread over the nodes.
    for (; pods < scale.pods; ++pods) {
      cache::PodInfo p = PodOf(Name("other-", pods), 0, "", "", 0);
      p.scheduler_name = "default-scheduler";
      p.node_name = Name("node-", pods % scale.nodes);
      p.phase = "Running";
      Add(p);
    }
    std::printf("pool: %d nodes, %d pods (%d gangplank pods running)\n", scale.nodes, scale.pods, gangplank_pods);
    running_pods = gangplank_pods;
  }

  // Full rounds, topping the waiting gangs back up to kWaiting after each, until a round admits nothing:
  // the steady state of a busy pool, every waiting gang blocked.
  void Settle() {
    engine::Rng rng(11);
    for (int round = 0; round < 50; ++round) {
      // The book learns of new gangs in the next round; add what is missing now.
      for (int missing = kWaiting - static_cast<int>(model->book.waiting_count()); missing > 0; --missing) {
        AddWaitingGang(serial++, rng);
      }
      model->NoteCapacityFreed();
      context.now = now;
      if (reconciler->Reconcile(*model, context).admitted == 0 && static_cast<int>(model->book.waiting_count()) >= kWaiting) {
        return;
      }
    }
  }

  void AddWaitingGang(int i, engine::Rng& rng) {
    const std::uint64_t kind = rng.Below(100);
    const int size = kind < 50 ? 1 : kind < 90 ? 2 + static_cast<int>(rng.Below(3)) : 8;
    const int gpus = kind < 50 ? 1 << rng.Below(4) : 8;
    const std::string queue = Name("q", 1 + static_cast<int>(rng.Below(kQueues - 1)));
    const std::string gang = Name("wait-", i);
    for (int m = 0; m < size; ++m) {
      cache::PodInfo p = PodOf(gang + "-" + std::to_string(m), gpus, queue, size > 1 ? gang : "", size);
      p.scheduling_gates = {std::string(cache::kAdmissionGate)};
      p.priority = static_cast<int>(rng.Below(3));
      Add(p);
    }
  }

  // Jobs finish on `nodes` nodes: their gangplank pods go, and their GPUs are free for waiting gangs.
  void FreeNodes(int nodes) {
    for (const std::string& key : tracker.Keys()) {
      if (key.rfind("ml/Pod/run-", 0) != 0) continue;
      auto gang = tracker.Share(key);
      if (!gang || gang->members.empty()) continue;
      const std::string& node = gang->members.front().pod.node_name;
      if (std::stoi(node.substr(5)) >= nodes) continue;
      Delete(gang->members.front().pod);
    }
    model->NoteCapacityFreed();
  }

  // A running lone pod ends (its job finished): the controller's pod handler, capacity freed. False when
  // that pod is gone already.
  bool End(const std::string& key) {
    auto gang = tracker.Share(key);
    if (!gang || gang->members.empty()) return false;
    const cache::PodInfo pod = gang->members.front().pod;
    gang.reset();
    Delete(pod);
    model->NoteCapacityFreed();
    model->NoteRunningChanged();
    return true;
  }

  double Reconcile() {
    context.now = now;
    const double start = ThreadCpuMs();
    const RoundReport report = reconciler->Reconcile(*model, context);
    full_rounds += report.full ? 1 : 0;
    if (report.ran) engine_ms.push_back(report.seconds * 1000);
    return ThreadCpuMs() - start;
  }
};

struct Stats {
  double median = 0, p99 = 0;
};

Stats StatsOf(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples[std::min(samples.size() - 1, samples.size() * 99 / 100)]};
}

}  // namespace
}  // namespace gangplank::op

int main() {
  using namespace gangplank::op;
  using namespace std::chrono;
  spdlog::set_level(spdlog::level::warn);  // One info line per admission would be the bench's biggest cost.
  const auto setup = Clock::now();
  Bench b(ScaleFromEnvironment());
  b.model->NoteQueuesChanged();
  b.Settle();
  std::printf("setup: %.1f s; %zu gangs waiting, %zu running\n", duration<double>(Clock::now() - setup).count(),
              b.model->book.waiting_count(), b.model->book.running_count());

  constexpr int kRounds = 21;
  constexpr int kEvents = 400;
  std::vector<double> full_blocked, full_room, arrival, replan, status_only, ended;
  // Baseline 1: full rounds in the busy steady state (every waiting gang blocked, little to plan).
  for (int i = 0; i < kRounds; ++i) {
    b.model->NoteCapacityFreed();
    full_blocked.push_back(b.Reconcile());
  }
  const Stats blocked_engine = StatsOf(b.engine_ms);
  gangplank::engine::Rng rng(7);
  b.full_rounds = 0;
  b.engine_ms.clear();
  for (int i = 0; i < kEvents; ++i) {
    // A new one-pod gang arrives (gated by the webhook): handlers, then the incremental round.
    const double start = ThreadCpuMs();
    gangplank::cache::PodInfo p = PodOf(Name("new-", i), 8, Name("q", 1 + static_cast<int>(rng.Below(kQueues - 1))), "", 0);
    p.scheduling_gates = {std::string(gangplank::cache::kAdmissionGate)};
    b.Add(p);
    b.Reconcile();
    arrival.push_back(ThreadCpuMs() - start);
  }
  for (int i = 0; i < kEvents; ++i) {
    // A waiting gang's pod is relabelled (someone edits it): its gang is planned again.
    const int w = static_cast<int>(rng.Below(b.model->book.waiting_count()));
    auto gang = b.tracker.Share(b.model->book.WaitingKey(w));
    const double start = ThreadCpuMs();
    if (gang && !gang->members.empty()) {
      gangplank::cache::PodInfo edited = gang->members.front().pod;
      edited.labels["edited"] = std::to_string(i);
      edited.resource_version = std::to_string(std::stoll(edited.resource_version) + 1);
      b.Add(edited);
    }
    b.Reconcile();
    replan.push_back(ThreadCpuMs() - start);
  }
  for (int i = 0; i < kEvents; ++i) {
    // A running pod's status changes (conditions, as the kubelet writes them): nothing admission reads.
    auto gang = b.tracker.Share("ml/Pod/" + Name("run-", static_cast<int>(rng.Below(10000))));
    const double start = ThreadCpuMs();
    if (gang && !gang->members.empty()) {
      gangplank::cache::PodInfo same = gang->members.front().pod;
      same.resource_version = std::to_string(std::stoll(same.resource_version) + 1);
      b.Add(same);
    }
    b.Reconcile();
    status_only.push_back(ThreadCpuMs() - start);
  }
  const Stats event_engine = StatsOf(b.engine_ms);
  const int event_full_rounds = b.full_rounds;
  for (int i = 0; i < kEvents; ++i) {
    // A running pod ends (the commonest event of a busy cluster): its GPUs are free, so the round is a
    // full one, and whatever now fits is admitted.
    const std::string key = "ml/Pod/" + Name("run-", static_cast<int>(rng.Below(static_cast<std::uint64_t>(b.running_pods))));
    const double start = ThreadCpuMs();
    if (!b.End(key)) continue;
    b.Reconcile();
    ended.push_back(ThreadCpuMs() - start);
  }
  std::vector<double> relabelled, moved;
  for (int i = 0; i < kEvents; ++i) {
    // A labeller changes a label no pool or topology level reads (kube-controller-manager's
    // beta.kubernetes.io/os on each new node, GPU Feature Discovery's timestamp every minute): the
    // controller's node handler (not Moved: the node changes in place, and a selector may now match),
    // then the round.
    gangplank::cache::NodeInfo node = NodeOf(static_cast<int>(rng.Below(static_cast<std::uint64_t>(b.scale.nodes))));
    node.labels["nvidia.com/gfd.timestamp"] = std::to_string(i);
    const double start = ThreadCpuMs();
    b.model->state().UpsertNode(node);
    b.model->NoteCapacityFreed();
    b.Reconcile();
    relabelled.push_back(ThreadCpuMs() - start);
  }
  for (int i = 0; i < kRounds; ++i) {
    // A node moved to another rack and back (Moved: the state is rebuilt and every running gang looked
    // over; the controller also reads every pool's health again, not timed here). What every relabel
    // cost before relabels that move nothing were made in place.
    gangplank::cache::NodeInfo node = NodeOf(0);
    if (i % 2 == 0) node.labels["rack"] = "r-spare";
    const double start = ThreadCpuMs();
    b.model->state().UpsertNode(node);
    b.model->NoteNodesChanged();
    b.Reconcile();
    moved.push_back(ThreadCpuMs() - start);
  }
  // Baseline 2: jobs finish on 800 nodes and a full round must plan every waiting gang that might now
  // fit. The writer refuses the plans, so every repetition decides on the same state.
  const int freed_nodes = b.scale.nodes * 16 / 100;
  b.FreeNodes(freed_nodes);
  b.writer.refuse = true;
  b.engine_ms.clear();
  for (int i = 0; i < kRounds; ++i) {
    b.model->NoteCapacityFreed();
    full_room.push_back(b.Reconcile());
  }
  const Stats room_engine = StatsOf(b.engine_ms);
  std::printf("time inside the engine's round (median): full when blocked %.3f ms, full with room %.3f ms, "
              "incremental %.3f ms\n", blocked_engine.median, room_engine.median, event_engine.median);
  std::printf("full rounds among the %d measured events: %d (what NeedsFullRound asked for)\n", 3 * kEvents,
              event_full_rounds);
  const Stats fb = StatsOf(full_blocked), fr = StatsOf(full_room), a = StatsOf(arrival), r = StatsOf(replan),
              s = StatsOf(status_only);
  std::printf("\nCPU time of the reconciling thread per event: informer handlers' work plus the reconcile it causes\n");
  const std::string size = "(" + std::to_string(b.scale.nodes) + " nodes, " + std::to_string(b.scale.pods) + " pods, " +
                           std::to_string(kWaiting) + " waiting gangs)";
  const std::string baseline = "full round after jobs finish on " + std::to_string(freed_nodes) + " nodes (baseline)";
  std::printf("%-52s %10s %10s %14s\n", size.c_str(), "median ms", "p99 ms", "vs full w/ room");
  std::printf("%-52s %10.3f %10.3f %14.1f\n", baseline.c_str(), fr.median, fr.p99, 1.0);
  std::printf("%-52s %10.3f %10.3f %14.1f\n", "full round, steady state (every gang blocked)", fb.median, fb.p99, fr.median / fb.median);
  std::printf("%-52s %10.3f %10.3f %14.1f\n", "event: new gated pod (a gang of one arrives)", a.median, a.p99, fr.median / a.median);
  std::printf("%-52s %10.3f %10.3f %14.1f\n", "event: waiting pod edited (its gang replanned)", r.median, r.p99, fr.median / r.median);
  std::printf("%-52s %10.3f %10.3f %14.1f\n", "event: running pod status update", s.median, s.p99, fr.median / s.median);
  const Stats e = StatsOf(ended);
  std::printf("%-52s %10.3f %10.3f %14.1f\n", "event: running pod ends (capacity freed: full round)", e.median, e.p99,
              fr.median / e.median);
  const Stats rl = StatsOf(relabelled), mv = StatsOf(moved);
  std::printf("%-52s %10.3f %10.3f %14.1f\n", "event: node relabelled, nothing moves (in place)", rl.median, rl.p99,
              fr.median / rl.median);
  std::printf("%-52s %10.3f %10.3f %14.1f\n", "event: node moved to another rack (rebuild)", mv.median, mv.p99,
              fr.median / mv.median);
  // What one core sustains of each event alone, by the median (the operator's reconciles run on one worker).
  std::printf("\nevents one core reconciles per second (median): arrivals %.0f, pods ending %.0f\n", 1000 / a.median,
              1000 / e.median);
  std::printf("\nratio full round (jobs finished) / one pod event (median, arrivals): %.1f (target >= 20)\n", fr.median / a.median);
  std::printf("ratio full round (steady state) / one pod event (median, arrivals): %.1f\n", fb.median / a.median);
  return 0;
}
