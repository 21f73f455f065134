// An in-memory API server for the operator's writes: pods with resourceVersions (a stale precondition
// throws PodChanged, as a 409 would), PodDisruptionBudgets, conditions, events and statuses recorded
// for assertions. Failures can be injected per call kind.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cache/objects/conventions.h"
#include "operator/writer/cluster_writer.h"

namespace gangplank::op::testing {

class FakeClusterWriter : public ClusterWriter {
 public:
  // The pod as the "API server" has it; writes start from it.
  void Put(const cache::PodInfo& pod) {
    std::lock_guard lock(mu_);
    pods_[pod.uid] = pod;
  }
  std::optional<cache::PodInfo> Pod(const std::string& uid) const {
    std::lock_guard lock(mu_);
    auto it = pods_.find(uid);
    return it == pods_.end() ? std::nullopt : std::optional<cache::PodInfo>(it->second);
  }
  // Each pod write waits (up to 2 s) until `n` pod writes are in flight at once, as a slow API server
  // would keep them: a test then sees whether the caller overlaps its writes (MostInFlight).
  void OverlapWrites(int n) {
    std::lock_guard lock(flight_mu_);
    overlap_ = n;
  }
  int MostInFlight() const {
    std::lock_guard lock(flight_mu_);
    return most_in_flight_;
  }
  // Bumps a pod's resourceVersion behind the operator's back (someone else wrote it).
  void Touch(const std::string& uid) {
    std::lock_guard lock(mu_);
    Bump(pods_.at(uid));
  }

  cache::PodInfo PlanPod(const cache::PodInfo& pod, const std::string& node, const std::string& admission_id) override {
    return Write(pod, "plan", [&](cache::PodInfo& p) {
      p.annotations[std::string(cache::kPlannedNodeAnnotation)] = node;
      p.annotations[std::string(cache::kAdmissionIdAnnotation)] = admission_id;
      if (pod.active_deadline_seconds) p.active_deadline_seconds = pod.active_deadline_seconds;
    });
  }
  cache::PodInfo UnplanPod(const cache::PodInfo& pod) override {
    return Write(pod, "unplan", [&](cache::PodInfo& p) {
      p.annotations.erase(std::string(cache::kPlannedNodeAnnotation));
      p.annotations.erase(std::string(cache::kAdmissionIdAnnotation));
    });
  }
  cache::PodInfo ReleasePod(const cache::PodInfo& pod) override {
    return Write(pod, "release", [&](cache::PodInfo& p) {
      std::erase(p.scheduling_gates, std::string(cache::kAdmissionGate));
    });
  }
  std::optional<cache::PodInfo> ReadPod(const std::string& namespace_, const std::string& name) override {
    std::lock_guard lock(mu_);
    for (const auto& [uid, p] : pods_) {
      if (p.namespace_ == namespace_ && p.name == name) return p;
    }
    return std::nullopt;
  }
  cache::PodInfo AnnotatePod(const cache::PodInfo& pod, const AnnotationEdits& edits) override {
    return Write(pod, "annotate", [&](cache::PodInfo& p) { ApplyAnnotationEdits(p, edits); }, /*check_version=*/false);
  }
  EvictResult DeletePod(const cache::PodInfo& pod, int grace_seconds) override {
    std::lock_guard lock(mu_);
    log_.push_back("delete " + pod.name + " grace " + std::to_string(grace_seconds));
    deleted_.push_back(pod.name);
    return pods_.erase(pod.uid) > 0 ? EvictResult::kEvicted : EvictResult::kGone;
  }
  // Records the pod's name; returns it with a made-up uid (the fake keeps no created pods).
  cache::PodInfo CreatePod(const nlohmann::json& pod) override {
    std::lock_guard lock(mu_);
    cache::PodInfo p;
    p.name = pod.at("metadata").at("name").get<std::string>();
    p.namespace_ = pod.at("metadata").at("namespace").get<std::string>();
    p.uid = "uid-" + p.name;
    log_.push_back("create " + p.name);
    created_.push_back(pod);
    return p;
  }
  EvictResult EvictPod(const cache::PodInfo& pod, std::optional<int> grace_seconds) override {
    std::lock_guard lock(mu_);
    log_.push_back("evict " + pod.name + (grace_seconds ? " grace " + std::to_string(*grace_seconds) : ""));
    if (refuse_evictions_ > 0) {
      --refuse_evictions_;
      return EvictResult::kBlockedByBudget;
    }
    evicted_.push_back(pod.name);
    return pods_.erase(pod.uid) > 0 ? EvictResult::kEvicted : EvictResult::kGone;
  }
  std::vector<nlohmann::json> DisruptionBudgets(const std::string&) override {
    std::lock_guard lock(mu_);
    return budgets_;
  }
  void SetPodCondition(const cache::PodInfo& pod, const ConditionWrite& c) override {
    std::lock_guard lock(mu_);
    conditions_[pod.uid] = c;
    typed_conditions_[pod.uid + "|" + c.type] = c;
  }
  void SetPodGroupCondition(const std::string& namespace_, const std::string& name, const ConditionWrite& c) override {
    std::lock_guard lock(mu_);
    pod_group_conditions_[namespace_ + "/" + name + "|" + c.type] = c;
  }
  void RecordEvent(const EventWrite& e) override {
    std::lock_guard lock(mu_);
    events_.push_back(e);
  }
  bool WriteStatus(const std::string& plural, const std::string& name, const nlohmann::json& fields,
                   const std::vector<ConditionWrite>& conditions) override {
    std::lock_guard lock(mu_);
    statuses_[plural + "/" + name] = fields;
    if (!conditions.empty()) status_conditions_[plural + "/" + name] = conditions.front();
    return true;
  }

  // Injections.
  void FailPlanOf(const std::string& pod_name) {
    std::lock_guard lock(mu_);
    fail_plan_of_ = pod_name;
  }
  void RefuseEvictions(int count) {
    std::lock_guard lock(mu_);
    refuse_evictions_ = count;
  }
  void AddBudget(nlohmann::json pdb) {
    std::lock_guard lock(mu_);
    budgets_.push_back(std::move(pdb));
  }

  // Records.
  std::vector<std::string> log() const {
    std::lock_guard lock(mu_);
    return log_;
  }
  std::vector<std::string> evicted() const {
    std::lock_guard lock(mu_);
    return evicted_;
  }
  std::vector<std::string> deleted() const {
    std::lock_guard lock(mu_);
    return deleted_;
  }
  std::vector<nlohmann::json> created() const {
    std::lock_guard lock(mu_);
    return created_;
  }
  // The last condition of that type written on the pod.
  std::optional<ConditionWrite> ConditionOf(const std::string& uid, const std::string& type) const {
    std::lock_guard lock(mu_);
    auto it = typed_conditions_.find(uid + "|" + type);
    return it == typed_conditions_.end() ? std::nullopt : std::optional<ConditionWrite>(it->second);
  }
  std::optional<ConditionWrite> PodGroupCondition(const std::string& key, const std::string& type) const {
    std::lock_guard lock(mu_);
    auto it = pod_group_conditions_.find(key + "|" + type);
    return it == pod_group_conditions_.end() ? std::nullopt : std::optional<ConditionWrite>(it->second);
  }
  std::optional<ConditionWrite> ConditionOf(const std::string& uid) const {
    std::lock_guard lock(mu_);
    auto it = conditions_.find(uid);
    return it == conditions_.end() ? std::nullopt : std::optional<ConditionWrite>(it->second);
  }
  std::vector<EventWrite> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  std::optional<nlohmann::json> Status(const std::string& key) const {
    std::lock_guard lock(mu_);
    auto it = statuses_.find(key);
    return it == statuses_.end() ? std::nullopt : std::optional<nlohmann::json>(it->second);
  }
  std::optional<ConditionWrite> StatusCondition(const std::string& key) const {
    std::lock_guard lock(mu_);
    auto it = status_conditions_.find(key);
    return it == status_conditions_.end() ? std::nullopt : std::optional<ConditionWrite>(it->second);
  }

 private:
  static void Bump(cache::PodInfo& p) { p.resource_version = std::to_string(std::stoll(p.resource_version.empty() ? "0" : p.resource_version) + 1); }

  template <typename F>
  cache::PodInfo Write(const cache::PodInfo& pod, const std::string& what, F&& change, bool check_version = true) {
    InFlight flight(*this);
    std::lock_guard lock(mu_);
    log_.push_back(what + " " + pod.name);
    auto it = pods_.find(pod.uid);
    if (it == pods_.end()) throw PodChanged("pod " + pod.name + " is gone");
    if (what == "plan" && pod.name == fail_plan_of_) {
      fail_plan_of_.clear();
      throw PodChanged("pod " + pod.name + " changed (injected)");
    }
    if (check_version && it->second.resource_version != pod.resource_version) throw PodChanged("pod " + pod.name + " changed");
    change(it->second);
    Bump(it->second);
    return it->second;
  }

  // One pod write between its start and its answer (OverlapWrites).
  class InFlight {
   public:
    explicit InFlight(FakeClusterWriter& w) : w_(w) {
      std::unique_lock lock(w_.flight_mu_);
      w_.most_in_flight_ = std::max(w_.most_in_flight_, ++w_.in_flight_);
      w_.flight_cv_.notify_all();
      w_.flight_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return w_.in_flight_ >= w_.overlap_; });
    }
    ~InFlight() {
      std::lock_guard lock(w_.flight_mu_);
      --w_.in_flight_;
    }
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;

   private:
    FakeClusterWriter& w_;
  };

  mutable std::mutex flight_mu_;
  std::condition_variable flight_cv_;
  int overlap_ = 0, in_flight_ = 0, most_in_flight_ = 0;
  mutable std::mutex mu_;
  std::map<std::string, cache::PodInfo> pods_;
  std::vector<std::string> log_;
  std::vector<std::string> evicted_;
  std::vector<std::string> deleted_;
  std::vector<nlohmann::json> created_;
  std::string fail_plan_of_;
  int refuse_evictions_ = 0;
  std::vector<nlohmann::json> budgets_;
  std::map<std::string, ConditionWrite> conditions_;
  std::map<std::string, ConditionWrite> typed_conditions_;  // By "uid|type".
  std::map<std::string, ConditionWrite> pod_group_conditions_;  // By "namespace/name|type".
  std::vector<EventWrite> events_;
  std::map<std::string, nlohmann::json> statuses_;
  std::map<std::string, ConditionWrite> status_conditions_;
};

}  // namespace gangplank::op::testing
