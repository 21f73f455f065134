#include "operator/model/pool_set.h"

#include <algorithm>

namespace gangplank::op {
namespace {

// A pool's nodes are those it alone selects, judged against every pool there is.
std::function<bool(const engine::NodeSpec&)> OwnedBy(const std::vector<cache::PoolConfig>& configs,
                                                    const std::string& pool) {
  return [configs, pool](const engine::NodeSpec& spec) {
    const int owner = cache::OwningPool(configs, spec);
    return owner >= 0 && configs[owner].name == pool;
  };
}

}  // namespace

PoolSet::~PoolSet() {
  for (auto& [name, model] : pools_) feed_.Detach(&model->state());
}

bool PoolSet::SelectorsChanged(const std::vector<cache::PoolConfig>& configs) const {
  if (configs.size() != configs_.size()) return true;
  for (size_t i = 0; i < configs.size(); ++i) {
    const auto& a = configs[i];
    const auto& b = configs_[i];
    if (a.name != b.name || a.node_selector != b.node_selector || a.gpu_model != b.gpu_model) return true;
  }
  return false;
}

void PoolSet::Update(const std::vector<cache::PoolConfig>& configs) {
  std::lock_guard lock(mu_);
  // Any selector change moves nodes between pools: every model is made afresh.
  const bool selectors_changed = SelectorsChanged(configs);
  std::map<std::string, std::shared_ptr<PoolModel>> next;
  for (const cache::PoolConfig& config : configs) {
    auto old = pools_.find(config.name);
    const bool keep = old != pools_.end() && !selectors_changed &&
                      old->second->config().topology_levels == config.topology_levels &&
                      old->second->config().generation == config.generation;
    next[config.name] = keep ? old->second : std::make_shared<PoolModel>(config, OwnedBy(configs, config.name));
  }
  for (auto& [name, model] : pools_) {
    if (next.count(name) == 0 || next[name] != model) feed_.Detach(&model->state());
  }
  for (auto& [name, model] : next) {
    if (pools_.count(name) == 0 || pools_[name] != model) feed_.Attach(&model->state());
  }
  pools_ = std::move(next);
  configs_ = configs;
}

void PoolSet::UpdateHealth(const std::vector<engine::NodeSpec>& nodes) {
  std::map<std::string, PoolHealth> health = PoolHealthOf(Configs(), nodes);
  std::lock_guard lock(mu_);
  health_ = std::move(health);
}

std::shared_ptr<PoolModel> PoolSet::Find(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = pools_.find(name);
  return it == pools_.end() ? nullptr : it->second;
}

std::vector<std::string> PoolSet::Names() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, model] : pools_) out.push_back(name);
  return out;
}

std::map<std::string, std::shared_ptr<PoolModel>> PoolSet::Models() const {
  std::lock_guard lock(mu_);
  return pools_;
}

std::vector<cache::PoolConfig> PoolSet::Configs() const {
  std::lock_guard lock(mu_);
  return configs_;
}

bool PoolSet::MarksSpot(const engine::NodeSpec& node) const {
  std::lock_guard lock(mu_);
  return std::any_of(configs_.begin(), configs_.end(), [&](const cache::PoolConfig& p) { return p.MarksSpot(node); });
}

PoolHealth PoolSet::HealthOf(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = health_.find(name);
  return it == health_.end() ? PoolHealth{} : it->second;
}

void PoolSet::ForEach(const std::function<void(PoolModel&)>& note) const {
  std::lock_guard lock(mu_);
  for (const auto& [name, model] : pools_) note(*model);
}

}  // namespace gangplank::op
