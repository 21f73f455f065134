#include "operator/model/admission_book.h"

namespace gangplank::op {

void AdmissionBook::SetQueues(std::vector<engine::AdmissionQueue> queues) {
  input_.queues = std::move(queues);
  queue_index_.clear();
  for (size_t q = 0; q < input_.queues.size(); ++q) queue_index_[input_.queues[q].name] = static_cast<int>(q);
  input_.held = std::vector<double>(input_.queues.size(), 0.0);
  for (const engine::RunningGang& r : input_.running) AddHeld(r, +1);
}

void AdmissionBook::AddHeld(const engine::RunningGang& gang, double sign) {
  if (!input_.held) input_.held = std::vector<double>(input_.queues.size(), 0.0);
  auto q = queue_index_.find(gang.queue);
  if (q == queue_index_.end()) return;
  double& held = (*input_.held)[q->second];
  held += sign * gang.Gpus();
  if (held < 1e-9) held = 0;  // Keep float drift from leaving -0.000001 GPUs behind.
}

template <typename T>
void AdmissionBook::Put(std::vector<T>& list, std::unordered_map<std::string, int>& index, const std::string& key,
                        std::optional<T> entry) {
  auto it = index.find(key);
  if (it == index.end()) {
    if (!entry) return;
    index[key] = static_cast<int>(list.size());
    list.push_back(std::move(*entry));
    return;
  }
  const int at = it->second;
  if (entry) {
    list[at] = std::move(*entry);
    return;
  }
  // Swap with the last entry and drop it: O(1), and only the moved entry's index changes.
  index.erase(it);
  const int last = static_cast<int>(list.size()) - 1;
  if (at != last) {
    list[at] = std::move(list[last]);
    if constexpr (std::is_same_v<T, engine::WaitingGang>) {
      index[list[at].request.name] = at;
    } else {
      index[list[at].name] = at;
    }
  }
  list.pop_back();
}

void AdmissionBook::Set(const std::string& key, std::optional<engine::WaitingGang> waiting,
                        std::optional<engine::RunningGang> running, std::vector<cache::PodInfo> waiting_pods) {
  if (waiting) {
    waiting_pods_[key] = std::move(waiting_pods);
  } else {
    waiting_pods_.erase(key);
  }
  if (const int r = RunningIndex(key); r >= 0) AddHeld(input_.running[r], -1);
  if (running) AddHeld(*running, +1);
  Put(input_.running, running_index_, key, std::move(running));
  Put(input_.waiting, waiting_index_, key, std::move(waiting));
}

void AdmissionBook::MarkTerminating(const std::string& key) {
  if (const int r = RunningIndex(key); r >= 0) input_.running[r].terminating = true;
}

const std::vector<cache::PodInfo>& AdmissionBook::WaitingPods(const std::string& key) const {
  static const std::vector<cache::PodInfo> kNone;
  auto it = waiting_pods_.find(key);
  return it == waiting_pods_.end() ? kNone : it->second;
}

int AdmissionBook::WaitingIndex(const std::string& key) const {
  auto it = waiting_index_.find(key);
  return it == waiting_index_.end() ? -1 : it->second;
}

int AdmissionBook::RunningIndex(const std::string& key) const {
  auto it = running_index_.find(key);
  return it == running_index_.end() ? -1 : it->second;
}

}  // namespace gangplank::op
