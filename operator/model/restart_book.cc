#include "operator/model/restart_book.h"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "base/time_format.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

std::optional<double> SecondsOf(const Json& text) {
  if (!text.is_string()) return std::nullopt;
  return base::ParseEpochSeconds(text.get<std::string>());
}

}  // namespace

const RestartRecord* RestartBook::Find(const std::string& gang) const {
  const auto it = records_.find(gang);
  return it == records_.end() ? nullptr : &it->second;
}

RestartRecord& RestartBook::At(const std::string& gang) { return records_[gang]; }

RestartRecord* RestartBook::Mutable(const std::string& gang) {
  const auto it = records_.find(gang);
  return it == records_.end() ? nullptr : &it->second;
}

void RestartBook::Forget(const std::string& gang) { records_.erase(gang); }

void RestartBook::Cap() {
  while (records_.size() > kMaxRestartRecords) {
    auto oldest = records_.end();
    for (auto it = records_.begin(); it != records_.end(); ++it) {
      const bool older = oldest == records_.end() || it->second.failed < oldest->second.failed ||
                         (it->second.failed == oldest->second.failed && it->second.last_restart_at < oldest->second.last_restart_at);
      if (older) oldest = it;
    }
    records_.erase(oldest);
  }
}

nlohmann::json RestartBook::ToStatus() const {
  Json out = Json::array();
  for (const auto& [gang, r] : records_) {
    Json entry{{"gang", gang}, {"restarts", r.restarts}, {"cause", r.cause}, {"failed", r.failed}};
    if (r.last_restart_at > 0) entry["lastRestartTime"] = base::FormatEpochSeconds(r.last_restart_at);
    if (r.fault_at > 0) entry["faultTime"] = base::FormatEpochSeconds(r.fault_at);
    if (!r.message.empty()) entry["message"] = r.message;
    if (!r.avoid_nodes.empty()) entry["avoidNodes"] = r.avoid_nodes;
    if (!r.running_again) entry["recovering"] = true;
    out.push_back(std::move(entry));
  }
  return out;
}

RestartBook RestartBook::FromStatus(const nlohmann::json& entries) {
  RestartBook book;
  if (!entries.is_array()) return book;
  for (const Json& e : entries) {
    if (!e.is_object() || !e.contains("gang") || !e["gang"].is_string()) continue;
    RestartRecord r;
    if (const auto n = e.find("restarts"); n != e.end() && n->is_number_integer()) r.restarts = std::max(0, n->get<int>());
    r.last_restart_at = SecondsOf(e.value("lastRestartTime", Json())).value_or(0);
    r.fault_at = SecondsOf(e.value("faultTime", Json())).value_or(0);
    if (const auto c = e.find("cause"); c != e.end() && c->is_string()) r.cause = c->get<std::string>();
    if (const auto m = e.find("message"); m != e.end() && m->is_string()) r.message = m->get<std::string>();
    if (const auto f = e.find("failed"); f != e.end() && f->is_boolean()) r.failed = f->get<bool>();
    if (const auto g = e.find("recovering"); g != e.end() && g->is_boolean()) r.running_again = !g->get<bool>();
    if (const auto a = e.find("avoidNodes"); a != e.end() && a->is_array()) {
      for (const Json& node : *a) {
        if (node.is_string()) r.avoid_nodes.push_back(node.get<std::string>());
      }
    }
    book.records_[e["gang"].get<std::string>()] = std::move(r);
  }
  book.Cap();
  return book;
}

}  // namespace gangplank::op
