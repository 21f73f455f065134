// Topology domains built from an ordered list of node-label keys, widest level first
// (e.g. zone, block, rack, hostname). A domain at level i is identified by the node's label values at
// levels 0..i, so two racks with the same name in different zones are different domains.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/resources.h"

namespace gangplank::engine {

using DomainId = std::int32_t;
inline constexpr DomainId kNoDomain = -1;

class Topology {
 public:
  explicit Topology(std::vector<std::string> level_keys = {});

  const std::vector<std::string>& level_keys() const { return level_keys_; }
  int levels() const { return static_cast<int>(level_keys_.size()); }
  // Index of a level key, or -1 when the pool has no such level.
  int LevelIndex(const std::string& key) const;

  // Records a node; its path has one domain per level, kNoDomain where the node lacks that label.
  void AddNode(NodeId node, const std::map<std::string, std::string>& labels);
  // Whether `labels` put the node in the domains it is in: relabelling it then moves nothing.
  bool SamePath(NodeId node, const std::map<std::string, std::string>& labels) const;

  const std::vector<DomainId>& path(NodeId node) const { return paths_.at(node); }
  DomainId DomainOf(NodeId node, int level) const { return paths_.at(node).at(level); }

  int domain_count() const { return static_cast<int>(domains_.size()); }
  int LevelOf(DomainId d) const { return domains_.at(d).level; }
  DomainId ParentOf(DomainId d) const { return domains_.at(d).parent; }
  const std::string& ValueOf(DomainId d) const { return domains_.at(d).value; }
  const std::vector<NodeId>& NodesIn(DomainId d) const { return domains_.at(d).nodes; }
  const std::vector<DomainId>& DomainsAt(int level) const { return by_level_.at(level); }

 private:
  struct Domain {
    int level = 0;
    DomainId parent = kNoDomain;
    std::string value;
    std::vector<NodeId> nodes;
  };

  std::vector<std::string> level_keys_;
  std::vector<Domain> domains_;
  std::vector<std::vector<DomainId>> by_level_;
  std::map<std::vector<std::string>, DomainId> index_;  // Value path -> domain.
  std::vector<std::vector<DomainId>> paths_;             // Indexed by NodeId.
};

}  // namespace gangplank::engine
