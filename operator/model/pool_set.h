// The operator's GPU pools as their GPUPool resources say now: one PoolModel per pool, its cluster state
// attached to the shared feed (which keeps it current), kept while what the pool is made of is the same
// and made afresh when its selector, GPU model, topology levels or generation change; and each pool's
// health. Thread-safe: informer handlers, workers and the dry run use it at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cache/crd/pool_config.h"
#include "cache/feed/cluster_state_feed.h"
#include "operator/model/pool_health.h"
#include "operator/model/pool_model.h"

namespace gangplank::op {

class PoolSet {
 public:
  explicit PoolSet(cache::ClusterStateFeed& feed) : feed_(feed) {}
  ~PoolSet();
  PoolSet(const PoolSet&) = delete;
  PoolSet& operator=(const PoolSet&) = delete;

  // Makes the set what `configs` say (detaching the states of models that go or are replaced).
  void Update(const std::vector<cache::PoolConfig>& configs);
  // Recounts each pool's nodes and overlaps from the cluster's nodes.
  void UpdateHealth(const std::vector<engine::NodeSpec>& nodes);

  std::shared_ptr<PoolModel> Find(const std::string& name) const;
  std::vector<std::string> Names() const;
  std::map<std::string, std::shared_ptr<PoolModel>> Models() const;
  std::vector<cache::PoolConfig> Configs() const;
  // Whether any pool says the node is spot capacity (cache::PoolConfig::MarksSpot).
  bool MarksSpot(const engine::NodeSpec& node) const;
  PoolHealth HealthOf(const std::string& name) const;
  // Runs `note` on every model under the set's lock (for the cheap PoolModel::Note* calls).
  void ForEach(const std::function<void(PoolModel&)>& note) const;

 private:
  bool SelectorsChanged(const std::vector<cache::PoolConfig>& configs) const;

  cache::ClusterStateFeed& feed_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<PoolModel>> pools_;
  std::vector<cache::PoolConfig> configs_;
  std::map<std::string, PoolHealth> health_;
};

}  // namespace gangplank::op
