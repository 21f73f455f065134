#include "engine/topology.h"

#include <stdexcept>

namespace gangplank::engine {

Topology::Topology(std::vector<std::string> level_keys)
    : level_keys_(std::move(level_keys)), by_level_(level_keys_.size()) {}

bool Topology::SamePath(NodeId node, const std::map<std::string, std::string>& labels) const {
  const std::vector<DomainId>& path = paths_.at(node);
  for (int level = 0; level < levels(); ++level) {
    auto label = labels.find(level_keys_[level]);
    const DomainId domain = path[level];
    if ((label == labels.end()) != (domain == kNoDomain)) return false;
    if (domain != kNoDomain && domains_[domain].value != label->second) return false;
  }
  return true;
}

int Topology::LevelIndex(const std::string& key) const {
  for (int i = 0; i < levels(); ++i) {
    if (level_keys_[i] == key) return i;
  }
  return -1;
}

void Topology::AddNode(NodeId node, const std::map<std::string, std::string>& labels) {
  if (node != static_cast<NodeId>(paths_.size())) {
    throw std::logic_error("Topology::AddNode: nodes must be added in id order");
  }
  std::vector<DomainId> path(level_keys_.size(), kNoDomain);
  std::vector<std::string> values;
  DomainId parent = kNoDomain;
  for (int level = 0; level < levels(); ++level) {
    auto label = labels.find(level_keys_[level]);
    values.push_back(label == labels.end() ? std::string() : label->second);
    if (label == labels.end()) {
      parent = kNoDomain;  // Deeper levels of an unlabelled node belong to no known parent.
      continue;
    }
    auto [it, inserted] = index_.try_emplace(values, static_cast<DomainId>(domains_.size()));
    if (inserted) {
      domains_.push_back(Domain{level, parent, label->second, {}});
      by_level_[level].push_back(it->second);
    }
    domains_[it->second].nodes.push_back(node);
    path[level] = it->second;
    parent = it->second;
  }
  paths_.push_back(std::move(path));
}

}  // namespace gangplank::engine
