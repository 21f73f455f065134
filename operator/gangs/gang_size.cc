#include "operator/gangs/gang_size.h"

#include <algorithm>
#include <charconv>
#include <climits>

#include <nlohmann/json.hpp>

#include "cache/objects/conventions.h"
#include "cache/objects/decode_error.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;
constexpr long long kMaxMembers = 100000;

const Json* Find(const Json& object, std::initializer_list<const char*> path) {
  const Json* at = &object;
  for (const char* key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end() || it->is_null()) return nullptr;
    at = &*it;
  }
  return at;
}

// A whole number >= 0 at `path` (or `fallback` when absent).
long long Count(const Json& object, std::initializer_list<const char*> path, const std::string& name, long long fallback) {
  const Json* v = Find(object, path);
  if (v == nullptr) return fallback;
  if (!v->is_number_integer() || v->get<long long>() < 0 || v->get<long long>() > kMaxMembers) {
    throw cache::DecodeError(name, "expected a whole number from 0 to " + std::to_string(kMaxMembers));
  }
  return v->get<long long>();
}

int Positive(long long total, const std::string& what) {
  if (total <= 0) throw cache::DecodeError(what, "the gang has no members");
  return static_cast<int>(std::min(total, kMaxMembers));
}

GangSize JobSize(const Json& job, const std::string& at) {
  long long n = Count(job, {"spec", "parallelism"}, "spec.parallelism", 1);
  if (Find(job, {"spec", "completions"}) != nullptr) n = std::min(n, Count(job, {"spec", "completions"}, "spec.completions", n));
  return {Positive(n, "spec.parallelism"), at + " spec.parallelism"};
}

GangSize JobSetSize(const Json& jobset, const std::string& at) {
  const Json* jobs = Find(jobset, {"spec", "replicatedJobs"});
  if (jobs == nullptr || !jobs->is_array()) throw cache::DecodeError("spec.replicatedJobs", "missing");
  long long total = 0;
  for (size_t i = 0; i < jobs->size(); ++i) {
    const std::string field = "spec.replicatedJobs[" + std::to_string(i) + "]";
    const long long replicas = Count((*jobs)[i], {"replicas"}, field + ".replicas", 1);
    const long long parallelism = Count((*jobs)[i], {"template", "spec", "parallelism"}, field + ".template.spec.parallelism", 1);
    total += replicas * parallelism;
  }
  return {Positive(total, "spec.replicatedJobs"), at + " spec.replicatedJobs"};
}

GangSize TrainingJobSize(const Json& job, const std::string& at) {
  if (Find(job, {"spec", "runPolicy", "schedulingPolicy", "minAvailable"}) != nullptr) {
    const long long min = Count(job, {"spec", "runPolicy", "schedulingPolicy", "minAvailable"},
                                "spec.runPolicy.schedulingPolicy.minAvailable", 0);
    return {Positive(min, "spec.runPolicy.schedulingPolicy.minAvailable"), at + " spec.runPolicy.schedulingPolicy.minAvailable"};
  }
  const Json* spec = Find(job, {"spec"});
  // An elastic PyTorchJob starts with elasticPolicy.minReplicas workers (torchrun's minimum; its
  // autoscaler adds the rest, which join the running gang).
  const Json* elastic_min = Find(job, {"spec", "elasticPolicy", "minReplicas"});
  long long total = 0;
  std::string field;
  if (spec != nullptr && spec->is_object()) {
    for (const auto& [key, specs] : spec->items()) {
      if (key.size() < 12 || key.compare(key.size() - 12, 12, "ReplicaSpecs") != 0 || !specs.is_object()) continue;
      field = "spec." + key;
      for (const auto& [role, replica] : specs.items()) {
        if (elastic_min != nullptr && role == "Worker") {
          total += Count(job, {"spec", "elasticPolicy", "minReplicas"}, "spec.elasticPolicy.minReplicas", 1);
        } else {
          total += Count(replica, {"replicas"}, field + "." + role + ".replicas", 1);
        }
      }
    }
  }
  if (field.empty()) throw cache::DecodeError("spec", "no *ReplicaSpecs");
  if (elastic_min != nullptr) field += " with spec.elasticPolicy.minReplicas workers";
  return {Positive(total, field), at + " " + field};
}

GangSize RayClusterSize(const Json& cluster, const std::string& at) {
  long long total = Find(cluster, {"spec", "headGroupSpec"}) != nullptr ? 1 : 0;
  if (const Json* groups = Find(cluster, {"spec", "workerGroupSpecs"}); groups != nullptr && groups->is_array()) {
    for (size_t i = 0; i < groups->size(); ++i) {
      const std::string field = "spec.workerGroupSpecs[" + std::to_string(i) + "]";
      const Json& g = (*groups)[i];
      const long long min = Count(g, {"minReplicas"}, field + ".minReplicas", 0);
      const long long max = Count(g, {"maxReplicas"}, field + ".maxReplicas", kMaxMembers);
      total += std::clamp(Count(g, {"replicas"}, field + ".replicas", min), min, std::max(min, max));
    }
  }
  return {Positive(total, "spec"), at + " head and worker groups"};
}

// One group of a LeaderWorkerSet: its leader and size - 1 workers, in one domain of the set's
// exclusive-topology key when it has one. The controller makes the workers with the leader, except under
// startupPolicy LeaderReady (once the leader runs) or an exclusive topology (once the leader is
// scheduled, to follow it into its domain): holding such a leader for its workers would wait forever,
// so the leader is admitted first and the workers join it in its domain.
GangSize LeaderWorkerGroupSize(const Json& set, const std::string& at) {
  GangSize size;
  const long long members = Count(set, {"spec", "leaderWorkerTemplate", "size"}, "spec.leaderWorkerTemplate.size", 1);
  size.min_members = Positive(members, "spec.leaderWorkerTemplate.size");
  size.source = at + " spec.leaderWorkerTemplate.size";
  const Json* exclusive = Find(set, {"metadata", "annotations", "leaderworkerset.sigs.k8s.io/exclusive-topology"});
  if (exclusive != nullptr && exclusive->is_string()) {
    size.topology_key = exclusive->get<std::string>();
    size.exclusive_domain = !size.topology_key.empty();
  }
  const Json* policy = Find(set, {"spec", "startupPolicy"});
  const bool leader_ready = policy != nullptr && *policy == "LeaderReady";
  if (leader_ready || !size.topology_key.empty()) {
    size.min_members = 1;
    size.later_members = static_cast<int>(std::min(members, kMaxMembers)) - 1;
    size.source = at + (leader_ready ? " spec.startupPolicy LeaderReady" : " exclusive-topology") +
                  " (the workers are made once the leader " + (leader_ready ? "runs" : "is scheduled") +
                  ": the leader first, then its " + std::to_string(members - 1) + " workers beside it)";
  }
  return size;
}

// scheduling.k8s.io/v1beta1 PodGroup: exactly one of schedulingPolicy.basic and .gang.
GangSize NativePodGroupSize(const Json& group, const std::string& at) {
  GangSize size;
  const Json* policy = Find(group, {"spec", "schedulingPolicy"});
  if (policy == nullptr || !policy->is_object()) throw cache::DecodeError("spec.schedulingPolicy", "missing");
  const bool basic = Find(*policy, {"basic"}) != nullptr;
  const bool gang = Find(*policy, {"gang"}) != nullptr;
  if (basic == gang) throw cache::DecodeError("spec.schedulingPolicy", "expected exactly one of basic and gang");
  if (basic) {
    size.min_members = 1;
    size.singly = true;
    size.source = at + " spec.schedulingPolicy.basic (each pod on its own)";
  } else {
    if (Find(*policy, {"gang", "minCount"}) == nullptr) throw cache::DecodeError("spec.schedulingPolicy.gang.minCount", "missing");
    const long long min = Count(*policy, {"gang", "minCount"}, "spec.schedulingPolicy.gang.minCount", 0);
    size.min_members = Positive(min, "spec.schedulingPolicy.gang.minCount");
    size.source = at + " spec.schedulingPolicy.gang.minCount";
  }
  if (const Json* topology = Find(group, {"spec", "schedulingConstraints", "topology"}); topology != nullptr) {
    if (!topology->is_array()) throw cache::DecodeError("spec.schedulingConstraints.topology", "expected a list");
    if (!topology->empty()) {
      const Json* key = Find((*topology)[0], {"key"});
      if (key == nullptr || !key->is_string() || key->get<std::string>().empty()) {
        throw cache::DecodeError("spec.schedulingConstraints.topology[0].key", "expected a label key");
      }
      size.topology_key = key->get<std::string>();
    }
  }
  if (const Json* priority = Find(group, {"spec", "priority"}); priority != nullptr) {
    if (!priority->is_number_integer()) throw cache::DecodeError("spec.priority", "expected a whole number");
    size.priority = static_cast<int>(std::clamp<long long>(priority->get<long long>(), INT32_MIN, INT32_MAX));
  }
  size.disrupt_whole = Find(group, {"spec", "disruptionMode", "all"}) != nullptr;
  return size;
}

GangSize SizeOf(const cache::GangIdentity& gang, const Json& object, const std::string& at) {
  try {
    if (gang.source == cache::GangSource::kNativePodGroup) return NativePodGroupSize(object, at);
    if (gang.kind == "PodGroup") {
      if (Find(object, {"spec", "minMember"}) == nullptr) throw cache::DecodeError("spec.minMember", "missing");
      return {Positive(Count(object, {"spec", "minMember"}, "spec.minMember", 0), "spec.minMember"), at + " spec.minMember"};
    }
    if (gang.kind == "Job") return JobSize(object, at);
    if (gang.kind == "JobSet") return JobSetSize(object, at);
    if (gang.kind == "RayCluster") return RayClusterSize(object, at);
    if (gang.kind == "LeaderWorkerSet") return LeaderWorkerGroupSize(object, at);
    return TrainingJobSize(object, at);
  } catch (const cache::DecodeError& e) {
    throw cache::DecodeError(e.path().empty() ? at : at + " " + e.path(), e.problem());
  }
}

}  // namespace

GangSize GangSizeOf(const cache::GangIdentity& gang, const std::string& namespace_, const Json& object) {
  const std::string at = gang.kind + " " + namespace_ + "/" + gang.name;
  if (!object.is_object()) throw cache::DecodeError("", at + " is not a JSON object");
  GangSize size = SizeOf(gang, object, at);
  if (const Json* uid = Find(object, {"metadata", "uid"}); uid != nullptr && uid->is_string()) size.uid = uid->get<std::string>();
  return size;
}

std::string WorkloadWording(const std::string& namespace_, const Json& workload) {
  const Json* name = Find(workload, {"metadata", "name"});
  std::string out = "Workload " + namespace_ + "/" + (name != nullptr && name->is_string() ? name->get<std::string>() : "?");
  std::string terms;
  if (const Json* templates = Find(workload, {"spec", "podGroupTemplates"}); templates != nullptr && templates->is_array()) {
    std::string names;
    for (const Json& t : *templates) {
      const Json* n = Find(t, {"name"});
      if (n == nullptr || !n->is_string()) continue;
      names += (names.empty() ? "" : ", ") + n->get<std::string>();
    }
    if (!names.empty()) terms = "Pod Group Templates: " + names;
  }
  const Json* kind = Find(workload, {"spec", "controllerRef", "kind"});
  const Json* owner = Find(workload, {"spec", "controllerRef", "name"});
  if (kind != nullptr && kind->is_string() && owner != nullptr && owner->is_string()) {
    terms += (terms.empty() ? "" : "; ") + std::string("Controlled By: ") + kind->get<std::string>() + "/" + owner->get<std::string>();
  }
  return terms.empty() ? out : out + " (" + terms + ")";
}

std::optional<int> GangSizeAnnotation(const cache::PodInfo& pod) {
  auto it = pod.annotations.find(std::string(cache::kGangSizeAnnotation));
  if (it == pod.annotations.end()) return std::nullopt;
  const std::string& text = it->second;
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > kMaxMembers) {
    throw cache::DecodeError("metadata.annotations[" + std::string(cache::kGangSizeAnnotation) + "]",
                             "expected a whole number from 1 to " + std::to_string(kMaxMembers) + ", got '" + text + "'");
  }
  return value;
}

}  // namespace gangplank::op
