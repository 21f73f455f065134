// Helpers for admission tests: a small topology-labelled cluster, a packing policy, and a scenario
// builder that puts running gangs on named nodes and keeps the AdmissionInput in step with the model.
#pragma once

#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/admission/admission_input.h"
#include "engine/admission/admission_round.h"
#include "engine/cluster.h"
#include "engine/scoring_policy.h"
#include "tests/engine/least_free_policy.h"

namespace gangplank::engine::testing {

inline PodRequest Gpus(int n) {
  PodRequest r;
  r.host = HostResources{1000, 1024};
  r.gpu_count = n;
  r.gpu_milli = kMilliPerGpu;
  return r;
}

// racks x nodes_per_rack nodes of `gpus` GPUs in one zone; names k<rack>-n<node>. Names are built with
// append, not "literal" + string, which trips a false -Wrestrict in GCC 12 when inlined.
inline Cluster SmallCluster(int racks, int nodes_per_rack, int gpus = 8) {
  Cluster cluster({"zone", "rack"});
  for (int k = 0; k < racks; ++k) {
    for (int n = 0; n < nodes_per_rack; ++n) {
      std::string rack = "k";
      rack.append(std::to_string(k));
      NodeSpec spec;
      spec.name = rack;
      spec.name.append("-n").append(std::to_string(n));
      spec.capacity = HostResources{64000, 512 * 1024};
      spec.gpu_count = gpus;
      spec.gpu_model = "A100";
      spec.labels = {{"zone", "z0"}, {"rack", rack}};
      cluster.AddNode(spec);
    }
  }
  return cluster;
}

struct Scenario {
  Cluster cluster;
  AdmissionInput input;

  explicit Scenario(Cluster c) : cluster(std::move(c)) {}

  Scenario& Queue(const std::string& name, double weight = 1, double guaranteed = 0, const std::string& parent = "") {
    AdmissionQueue queue;
    queue.name = name;
    queue.weight = weight;
    queue.guaranteed = guaranteed;
    queue.parent = parent;
    input.queues.push_back(std::move(queue));
    return *this;
  }
  AdmissionQueue& QueueNamed(const std::string& name) {
    for (AdmissionQueue& q : input.queues) {
      if (q.name == name) return q;
    }
    throw std::invalid_argument("no queue " + name);
  }
  // A running gang with one pod per (node name, GPUs) entry.
  Scenario& Running(const std::string& name, const std::string& queue, double start,
                    const std::vector<std::pair<std::string, int>>& pods) {
    RunningGang gang;
    gang.name = name;
    gang.queue = queue;
    gang.start = start;
    for (const auto& [node, gpus] : pods) {
      const NodeId id = cluster.Find(node);
      if (id == kNoNode) throw std::invalid_argument("no node " + node);
      const Allocation a = MakeAllocation(id, Gpus(gpus), DefaultGpuChoice(cluster.state(id), Gpus(gpus)));
      cluster.Assign(a);
      gang.allocations.push_back(a);
    }
    input.running.push_back(std::move(gang));
    return *this;
  }
  // A waiting gang of `pods` pods of `gpus` GPUs.
  Scenario& Waiting(const std::string& name, const std::string& queue, double arrival, int pods, int gpus,
                    int priority = 0) {
    WaitingGang w;
    w.request.name = name;
    w.request.queue = queue;
    w.request.priority = priority;
    for (int i = 0; i < pods; ++i) w.request.members.push_back(Gpus(gpus));
    w.arrival = arrival;
    input.waiting.push_back(std::move(w));
    return *this;
  }
  int RunningIndex(const std::string& name) const {
    for (size_t i = 0; i < input.running.size(); ++i) {
      if (input.running[i].name == name) return static_cast<int>(i);
    }
    throw std::invalid_argument("no running gang " + name);
  }
};

inline std::vector<std::string> AdmittedNames(const AdmissionInput& input, const AdmissionDecision& d) {
  std::vector<std::string> names;
  for (const Admitted& a : d.admitted) names.push_back(input.waiting[a.waiting].request.name);
  return names;
}

inline std::vector<std::string> VictimNames(const AdmissionInput& input, const AdmissionDecision& d) {
  std::vector<std::string> names;
  for (const Reclaimed& r : d.reclaims) names.push_back(input.running[r.running].name);
  return names;
}

inline AdmissionDecision Decide(Scenario& s, const AdmissionConfig& config = {}, std::uint64_t seed = 1) {
  LeastFreePolicy policy;
  Rng rng(seed);
  return DecideAdmission(s.cluster, s.input, config, policy, rng);
}

inline AdmissionConfig WithReclaim() {
  AdmissionConfig c;
  c.reclaim.enabled = true;
  c.reclaim.min_wait_seconds = 0;
  c.reclaim.min_runtime_seconds = 3600;
  c.reclaim.max_lost_gpu_seconds = std::numeric_limits<double>::infinity();
  c.reclaim.max_victims_per_round = 4;
  c.reclaim.max_victims_per_window = 8;
  return c;
}

}  // namespace gangplank::engine::testing
