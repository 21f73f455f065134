// What each Queue's status says: the GPUs it uses and its fair share, summed over the GPU pools with
// each pool's figures beside (as the pools' last rounds saw them), its waiting gangs, and whether it is
// Ready (False, with the tree's reason, for a queue that cannot be used: a cycle, an unknown parent...).
// Written only when it changed.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "operator/model/pool_model.h"
#include "operator/model/queue_tree.h"
#include "operator/writer/cluster_writer.h"

namespace gangplank::op {

struct QueueStatus {
  nlohmann::json fields;
  ConditionWrite ready;
};

// Every queue of the tree (and every queue with a problem), by name. Reads each model's queue figures
// under its round mutex.
std::map<std::string, QueueStatus> QueueStatuses(const QueueTree& tree,
                                                 const std::map<std::string, std::shared_ptr<PoolModel>>& pools);

class QueueStatusWriter {
 public:
  explicit QueueStatusWriter(ClusterWriter& writer) : writer_(writer) {}

  void Write(const QueueTree& tree, const std::map<std::string, std::shared_ptr<PoolModel>>& pools);

 private:
  ClusterWriter& writer_;
  std::mutex mu_;
  std::map<std::string, std::string> written_;  // Queue -> the status last written (as text).
};

}  // namespace gangplank::op
