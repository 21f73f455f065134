// A pool's admission input kept between rounds and changed one gang at a time, so that a pod event
// costs work for its gang only: the waiting and running gangs (engine::AdmissionInput), their keys,
// and the GPUs each queue's running gangs hold (kept as running gangs come and go, handed to the round
// so it need not add them up again).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "cache/objects/kube_objects.h"
#include "engine/admission/admission_input.h"

namespace gangplank::op {

class AdmissionBook {
 public:
  // The pool's queues; held GPUs are re-added for the new list.
  void SetQueues(std::vector<engine::AdmissionQueue> queues);
  // Replaces what the book holds for one gang (nullopt removes that part). `waiting_pods` are the pods
  // behind the waiting gang's members, in the same order (an admitted plan is written to them).
  void Set(const std::string& key, std::optional<engine::WaitingGang> waiting, std::optional<engine::RunningGang> running,
           std::vector<cache::PodInfo> waiting_pods = {});
  void Remove(const std::string& key) { Set(key, std::nullopt, std::nullopt); }
  const std::vector<cache::PodInfo>& WaitingPods(const std::string& key) const;
  // Marks a running gang as being evicted (never chosen again, still holding its capacity).
  void MarkTerminating(const std::string& key);

  // The input as the round reads it; `held` is current. The caller sets now, reservations, recent
  // evictions and plan_only before each round.
  engine::AdmissionInput& input() { return input_; }
  const engine::AdmissionInput& input() const { return input_; }

  int WaitingIndex(const std::string& key) const;  // -1 when not waiting.
  int RunningIndex(const std::string& key) const;  // -1 when not running.
  const std::string& WaitingKey(int index) const { return input_.waiting.at(index).request.name; }
  const std::string& RunningKey(int index) const { return input_.running.at(index).name; }
  size_t waiting_count() const { return input_.waiting.size(); }
  size_t running_count() const { return input_.running.size(); }

 private:
  void AddHeld(const engine::RunningGang& gang, double sign);
  template <typename T>
  void Put(std::vector<T>& list, std::unordered_map<std::string, int>& index, const std::string& key,
           std::optional<T> entry);

  engine::AdmissionInput input_;
  std::unordered_map<std::string, int> waiting_index_;
  std::unordered_map<std::string, int> running_index_;
  std::unordered_map<std::string, int> queue_index_;
  std::unordered_map<std::string, std::vector<cache::PodInfo>> waiting_pods_;
};

}  // namespace gangplank::op
