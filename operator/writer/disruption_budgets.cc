#include "operator/writer/disruption_budgets.h"

#include <algorithm>

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

bool ExpressionMatches(const Json& e, const std::map<std::string, std::string>& labels) {
  if (!e.is_object()) return false;
  const std::string key = e.value("key", "");
  const std::string op = e.value("operator", "");
  const Json values = e.value("values", Json::array());
  auto it = labels.find(key);
  const bool has = it != labels.end();
  auto in_values = [&] {
    return has && values.is_array() &&
           std::any_of(values.begin(), values.end(), [&](const Json& v) { return v.is_string() && v.get<std::string>() == it->second; });
  };
  if (op == "In") return in_values();
  if (op == "NotIn") return !in_values();
  if (op == "Exists") return has;
  if (op == "DoesNotExist") return !has;
  return false;
}

}  // namespace

bool SelectorMatches(const Json& selector, const std::map<std::string, std::string>& labels) {
  if (selector.is_null()) return false;  // policy/v1: a null selector selects no pods, an empty one all.
  if (!selector.is_object()) return false;
  if (const auto ml = selector.find("matchLabels"); ml != selector.end() && ml->is_object()) {
    for (const auto& [key, value] : ml->items()) {
      auto it = labels.find(key);
      if (!value.is_string() || it == labels.end() || it->second != value.get<std::string>()) return false;
    }
  }
  if (const auto me = selector.find("matchExpressions"); me != selector.end() && me->is_array()) {
    for (const Json& e : *me) {
      if (!ExpressionMatches(e, labels)) return false;
    }
  }
  return true;
}

std::string BudgetsForbid(const std::vector<Json>& budgets, const std::vector<cache::PodInfo>& members) {
  for (const Json& pdb : budgets) {
    const Json selector = pdb.value("/spec/selector"_json_pointer, Json());
    const long covered = static_cast<long>(std::count_if(members.begin(), members.end(), [&](const cache::PodInfo& p) {
      return SelectorMatches(selector, p.labels);
    }));
    if (covered == 0) continue;
    const long allowed = pdb.value("/status/disruptionsAllowed"_json_pointer, 0L);
    if (covered > allowed) {
      return "PodDisruptionBudget " + pdb.value("/metadata/name"_json_pointer, std::string("?")) + " allows " +
             std::to_string(allowed) + " disruption" + (allowed == 1 ? "" : "s") + " and the gang has " +
             std::to_string(covered) + " pods it covers";
    }
  }
  return {};
}

}  // namespace gangplank::op
