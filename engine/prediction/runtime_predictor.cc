#include "engine/prediction/runtime_predictor.h"

#include <algorithm>
#include <cmath>

namespace gangplank::engine {

std::vector<std::string> LevelNames(const RuntimeKey& key) {
  const std::string gpus = key.gpus > 0 ? "gpus=" + std::to_string(key.gpus) : "";
  const std::string queue = key.queue.empty() ? "" : "queue=" + key.queue;
  auto join = [](std::initializer_list<std::string> parts) {
    std::string out;
    for (const std::string& p : parts) {
      if (p.empty()) continue;
      out += (out.empty() ? "" : ",") + p;
    }
    return out;
  };
  std::vector<std::string> names;
  auto add = [&](std::string name) {
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  };
  if (!key.job_class.empty()) {
    // A class is its namespace's own: a tenant's short jobs named like another's must not make the
    // other's predicted short (its backfills would then be ended for overstaying).
    const std::string ns = key.namespace_.empty() ? "" : "namespace=" + key.namespace_;
    add(join({ns, "class=" + key.job_class, gpus}));
    add(join({ns, "class=" + key.job_class}));
  }
  if (!key.namespace_.empty()) add(join({queue, "namespace=" + key.namespace_, gpus}));
  add(join({queue, gpus}));
  add(queue);
  add(gpus);
  add("*");
  return names;
}

int RuntimePredictor::LevelOf(const std::string& name) {
  auto it = by_name_.find(name);
  if (it != by_name_.end()) return it->second;
  const int id = static_cast<int>(windows_.size());
  windows_.push_back(Window{name, {}, {}, 0});
  by_name_.emplace(name, id);
  return id;
}

KeyChain RuntimePredictor::Chain(const RuntimeKey& key) {
  KeyChain chain;
  for (const std::string& name : LevelNames(key)) chain.levels.push_back(LevelOf(name));
  return chain;
}

KeyChain RuntimePredictor::FindChain(const RuntimeKey& key) const {
  KeyChain chain;
  for (const std::string& name : LevelNames(key)) {
    if (auto it = by_name_.find(name); it != by_name_.end()) chain.levels.push_back(it->second);
  }
  return chain;
}

void RuntimePredictor::Add(Window& w, double seconds) {
  w.by_age.push_back(seconds);
  w.sorted.insert(std::upper_bound(w.sorted.begin(), w.sorted.end(), seconds), seconds);
  if (static_cast<int>(w.by_age.size()) > std::max(1, config_.window)) {
    const double oldest = w.by_age.front();
    w.by_age.pop_front();
    w.sorted.erase(std::lower_bound(w.sorted.begin(), w.sorted.end(), oldest));
  }
}

void RuntimePredictor::Observe(const KeyChain& chain, double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return;  // A clock gone backwards teaches nothing.
  ++feeds_;
  for (int level : chain.levels) {
    Add(windows_[level], seconds);
    windows_[level].fed = feeds_;
  }
}

const RuntimePredictor::Window* RuntimePredictor::Answering(const KeyChain& chain, double from) const {
  for (int level : chain.levels) {
    const Window& w = windows_[level];
    const auto first = std::upper_bound(w.sorted.begin(), w.sorted.end(), from);
    if (w.sorted.end() - first >= std::max(1, config_.min_samples)) return &w;
  }
  return nullptr;
}

std::optional<RuntimePrediction> RuntimePredictor::Quantile(const KeyChain& chain, double quantile) const {
  const Window* w = Answering(chain, -1);
  if (w == nullptr) return std::nullopt;
  const double q = std::clamp(quantile, 0.0, 1.0);
  // Nearest rank: the smallest sample with at least q of the samples at or below it.
  const auto n = w->sorted.size();
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(q * static_cast<double>(n))));
  return RuntimePrediction{w->sorted[std::min(rank, n) - 1], w->name, static_cast<int>(n)};
}

std::optional<double> RuntimePredictor::Remaining(const KeyChain& chain, double elapsed) const {
  const Window* w = Answering(chain, elapsed);
  if (w == nullptr) return std::nullopt;
  const auto first = std::upper_bound(w->sorted.begin(), w->sorted.end(), elapsed);
  const auto longer = static_cast<std::size_t>(w->sorted.end() - first);
  return *(first + static_cast<std::ptrdiff_t>((longer - 1) / 2)) - elapsed;
}

std::optional<double> RuntimePredictor::PredictedEnd(const KeyChain& chain, double start, double now) const {
  const std::optional<double> left = Remaining(chain, now - start);
  return left ? std::optional<double>(now + *left) : std::nullopt;
}

std::vector<std::pair<std::string, std::vector<double>>> RuntimePredictor::Export(std::size_t max_levels) const {
  std::vector<const Window*> fed;
  for (const Window& w : windows_) {
    if (!w.by_age.empty()) fed.push_back(&w);
  }
  // Most recently fed first; a name breaks ties (levels fed by one sample), so the order is stable.
  std::sort(fed.begin(), fed.end(), [](const Window* a, const Window* b) {
    return a->fed != b->fed ? a->fed > b->fed : a->name < b->name;
  });
  if (fed.size() > max_levels) fed.resize(max_levels);
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const Window* w : fed) out.emplace_back(w->name, std::vector<double>(w->by_age.begin(), w->by_age.end()));
  return out;
}

void RuntimePredictor::Restore(const std::vector<std::pair<std::string, std::vector<double>>>& windows) {
  // The first is the most recently fed: it gets the latest counter.
  for (auto it = windows.rbegin(); it != windows.rend(); ++it) {
    Window& w = windows_[LevelOf(it->first)];
    w.by_age.clear();
    w.sorted.clear();
    for (double s : it->second) {
      if (s >= 0 && std::isfinite(s)) Add(w, s);
    }
    w.fed = ++feeds_;
  }
}

}  // namespace gangplank::engine
