#include "operator/model/runtime_book.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/time_format.h"
#include "cache/objects/conventions.h"
#include "operator/gangs/gang_tracker.h"

namespace gangplank::op {

void RuntimeBook::Configure(const cache::PoolRuntimePrediction& setting) {
  if (!setting.enabled) return;
  quantile = setting.backfill_quantile;
  predictor.emplace(engine::PredictorConfig{setting.min_samples, setting.window});
}

const engine::KeyChain& RuntimeBook::ChainOf(const Gang& gang, const std::string& queue, double gpus) {
  auto it = chains.find(gang.key);
  if (it == chains.end()) it = chains.emplace(gang.key, predictor->Chain(RuntimeKeyOf(gang, queue, gpus))).first;
  return it->second;
}

void RuntimeBook::Forget(const std::string& gang_key) {
  chains.erase(gang_key);
  backfills.erase(gang_key);
}

std::string NameStem(const std::string& name) {
  std::string stem = name;
  for (;;) {
    const size_t dash = stem.rfind('-');
    if (dash == std::string::npos || dash == 0) return stem;
    const bool digits = std::any_of(stem.begin() + static_cast<std::ptrdiff_t>(dash), stem.end(),
                                    [](unsigned char c) { return std::isdigit(c) != 0; });
    if (!digits) return stem;
    stem.resize(dash);
  }
}

engine::RuntimeKey RuntimeKeyOf(const Gang& gang, const std::string& queue, double gpus) {
  engine::RuntimeKey key;
  key.queue = queue;
  key.namespace_ = gang.namespace_;
  key.gpus = static_cast<int>(std::lround(gpus));
  if (!gang.members.empty()) {
    const auto& labels = gang.members.front().pod.labels;
    if (auto it = labels.find(std::string(cache::kJobClassLabel)); it != labels.end()) key.job_class = it->second;
  }
  if (key.job_class.empty() && !gang.identity.name.empty()) key.job_class = NameStem(gang.identity.name);
  return key;
}

nlohmann::json RuntimeStatus(const engine::RuntimePredictor& predictor) {
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& [name, samples] : predictor.Export(kRuntimeStatusKeys)) {
    nlohmann::json seconds = nlohmann::json::array();
    for (double s : samples) seconds.push_back(std::round(s * 10) / 10);
    keys.push_back({{"key", name}, {"seconds", std::move(seconds)}});
  }
  return {{"keys", std::move(keys)}};
}

void RestoreRuntimes(engine::RuntimePredictor& predictor, const nlohmann::json& status) {
  if (!status.is_object() || !status.contains("keys") || !status["keys"].is_array()) return;
  std::vector<std::pair<std::string, std::vector<double>>> windows;
  for (const nlohmann::json& k : status["keys"]) {
    if (!k.is_object() || !k.value("key", nlohmann::json()).is_string()) continue;  // Malformed: skipped.
    const nlohmann::json seconds = k.value("seconds", nlohmann::json::array());
    if (!seconds.is_array()) continue;
    std::vector<double> samples;
    for (const nlohmann::json& s : seconds) {
      if (s.is_number()) samples.push_back(s.get<double>());
    }
    windows.emplace_back(k["key"].get<std::string>(), std::move(samples));
  }
  predictor.Restore(windows);
}

nlohmann::json BackfillStatus(const std::map<std::string, PredictedBackfill>& backfills) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [gang, b] : backfills) {
    nlohmann::json entry{{"gang", gang}, {"leaveBy", base::FormatEpochSeconds(b.leave_by)}, {"overran", b.overran}};
    if (b.checkpoint_deadline > 0) entry["checkpointBy"] = base::FormatEpochSeconds(b.checkpoint_deadline);
    list.push_back(std::move(entry));
  }
  return list;
}

std::map<std::string, PredictedBackfill> RestoreBackfills(const nlohmann::json& status) {
  std::map<std::string, PredictedBackfill> out;
  if (!status.is_array()) return out;
  for (const nlohmann::json& b : status) {
    if (!b.is_object() || !b.value("gang", nlohmann::json()).is_string() ||
        !b.value("leaveBy", nlohmann::json()).is_string()) {
      continue;
    }
    const std::optional<double> leave_by = base::ParseEpochSeconds(b["leaveBy"].get<std::string>());
    if (!leave_by) continue;
    const bool overran = b.value("overran", nlohmann::json(false)).is_boolean() && b["overran"].get<bool>();
    PredictedBackfill& kept = out[b["gang"].get<std::string>()];
    kept = PredictedBackfill{*leave_by, overran, 0};
    if (b.value("checkpointBy", nlohmann::json()).is_string()) {
      kept.checkpoint_deadline = base::ParseEpochSeconds(b["checkpointBy"].get<std::string>()).value_or(0);
    }
  }
  return out;
}

}  // namespace gangplank::op
