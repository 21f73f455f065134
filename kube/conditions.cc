#include "kube/conditions.h"

#include <stdexcept>

namespace gangplank::kube {
namespace {

bool IsReason(const std::string& r) {
  if (r.empty() || r.size() > 1024 || !std::isalpha(static_cast<unsigned char>(r.front()))) return false;
  for (size_t i = 1; i < r.size(); ++i) {
    char c = r[i];
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
              ((c == ',' || c == ':') && i + 1 < r.size());  // must not end in ',' or ':'
    if (!ok) return false;
  }
  return true;
}

}  // namespace

void ValidateCondition(const ConditionUpdate& u) {
  if (u.type.empty() || u.type.size() > 316) throw std::invalid_argument("condition type must be 1..316 characters");
  if (u.status != "True" && u.status != "False" && u.status != "Unknown") {
    throw std::invalid_argument("condition " + u.type + ": status must be True, False or Unknown, not '" + u.status + "'");
  }
  if (!IsReason(u.reason)) {
    throw std::invalid_argument("condition " + u.type + ": reason '" + u.reason + "' is not CamelCase");
  }
}

const nlohmann::json* FindCondition(const nlohmann::json& conditions, const std::string& type) {
  if (!conditions.is_array()) return nullptr;
  for (const auto& c : conditions) {
    if (c.is_object() && c.value("type", "") == type) return &c;
  }
  return nullptr;
}

bool SetCondition(nlohmann::json& conditions, const ConditionUpdate& u, base::SystemTime now) {
  ValidateCondition(u);
  if (!conditions.is_array()) conditions = nlohmann::json::array();
  nlohmann::json* existing = nullptr;
  for (auto& c : conditions) {
    if (c.is_object() && c.value("type", "") == u.type) existing = &c;
  }
  if (existing == nullptr) {
    conditions.push_back({{"type", u.type},
                          {"status", u.status},
                          {"reason", u.reason},
                          {"message", u.message},
                          {"observedGeneration", u.observed_generation},
                          {"lastTransitionTime", base::FormatTime(now)}});
    return true;
  }
  nlohmann::json& c = *existing;
  bool changed = false;
  if (c.value("status", "") != u.status) {
    c["status"] = u.status;
    c["lastTransitionTime"] = base::FormatTime(now);
    changed = true;
  } else if (!c.contains("lastTransitionTime")) {
    c["lastTransitionTime"] = base::FormatTime(now);
    changed = true;
  }
  auto assign = [&](const char* key, const nlohmann::json& value) {
    if (!c.contains(key) || c[key] != value) {
      c[key] = value;
      changed = true;
    }
  };
  assign("reason", u.reason);
  assign("message", u.message);
  assign("observedGeneration", u.observed_generation);
  return changed;
}

void SetObservedGeneration(nlohmann::json& status, const nlohmann::json& object) {
  int64_t generation = 0;
  if (object.contains("metadata") && object["metadata"].contains("generation")) {
    generation = object["metadata"]["generation"].get<int64_t>();
  }
  status["observedGeneration"] = generation;
}

}  // namespace gangplank::kube
