#include "operator/faults/node_faults.h"

namespace gangplank::op {
namespace {

// What stays the same while one signal lasts: its cause and what it names, not its time or its words.
std::string IdentityOf(const cache::NodeFaultSignal& s) {
  std::string text = s.signal;
  for (const char* cut : {" since ", " ("}) {
    if (const auto at = text.find(cut); at != std::string::npos) text.resize(at);
  }
  return std::string(cache::NodeFaultCauseName(s.cause)) + "|" + text;
}

bool SameSignals(const std::vector<cache::NodeFaultSignal>& a, const std::vector<cache::NodeFaultSignal>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].cause != b[i].cause || a[i].signal != b[i].signal || a[i].since != b[i].since) return false;
  }
  return true;
}

}  // namespace

bool NodeFaults::Observe(const cache::NodeInfo& node, const cache::NodeFaultRules& rules, double now) {
  std::vector<cache::NodeFaultSignal> signals = cache::ReadNodeFaults(node, rules);
  std::lock_guard lock(mu_);
  std::map<std::string, double>& seen = first_seen_[node.name];
  std::map<std::string, double> still;
  for (cache::NodeFaultSignal& s : signals) {
    const std::string id = IdentityOf(s);
    const auto before = seen.find(id);
    const double first = before == seen.end() ? now : before->second;
    still[id] = first;
    if (!s.since) s.since = first;
  }
  seen = std::move(still);
  if (seen.empty()) first_seen_.erase(node.name);

  const std::vector<cache::NodeDraGpus::Fenced>& fenced = node.dra.fenced;
  const auto had = faults_->find(node.name);
  if (signals.empty() && fenced.empty() && had == faults_->end()) return false;
  if (had != faults_->end() && SameSignals(had->second.signals, signals) && had->second.fenced == fenced) return false;
  auto next = std::make_shared<NodeFaultSnapshot>(*faults_);
  if (signals.empty() && fenced.empty()) {
    next->erase(node.name);
  } else {
    (*next)[node.name] = FaultyNode{std::move(signals), fenced};
  }
  faults_ = std::move(next);
  return true;
}

bool NodeFaults::Remove(const std::string& node) {
  std::lock_guard lock(mu_);
  first_seen_.erase(node);
  if (faults_->count(node) == 0) return false;
  auto next = std::make_shared<NodeFaultSnapshot>(*faults_);
  next->erase(node);
  faults_ = std::move(next);
  return true;
}

std::shared_ptr<const NodeFaultSnapshot> NodeFaults::Snapshot() const {
  std::lock_guard lock(mu_);
  return faults_;
}

}  // namespace gangplank::op
