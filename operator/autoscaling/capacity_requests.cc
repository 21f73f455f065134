#include "operator/autoscaling/capacity_requests.h"

#include <cinttypes>
#include <cstdio>
#include <limits>
#include <utility>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "base/time_format.h"
#include "cache/objects/conventions.h"
#include "engine/short_string_hash.h"
#include "logging/json_log.h"
#include "operator/reasons.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

// After the last placeholder of a request landed, the gang has this long to be admitted onto the new
// nodes before a round that still finds no room asks again (the cache may not have seen them yet).
constexpr double kSettleSeconds = 30;
// A pool asks for one gang's nodes a second at most, in the round's order: an autoscaler that batches
// pending pods orders those of one size by creation time (seconds), so when it cannot add them all the
// older gang's placeholders are served first, whole, instead of parts of several gangs.
constexpr double kAskSpacingSeconds = 1;
// A gang out of the pool's waiting ones this long is gone (or routed elsewhere), not between two refreshes.
constexpr double kAbsentSeconds = 5;

std::string GangHash(const std::string& gang_key) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016" PRIx64, engine::ShortStringHash(gang_key));
  return hex;
}

std::string Nodes(int n) { return std::to_string(n) + (n == 1 ? " node" : " nodes"); }

Json TolerationsOf(const engine::PodRequest& member) {
  Json out = Json::array();
  for (const engine::Toleration& t : member.tolerations) {
    Json j{{"operator", t.op}};
    if (!t.key.empty()) j["key"] = t.key;
    if (!t.value.empty()) j["value"] = t.value;
    if (!t.effect.empty()) j["effect"] = t.effect;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

CapacityRequests::CapacityRequests(ClusterWriter& writer, PlaceholderOptions options)
    : writer_(writer), options_(std::move(options)) {}

bool CapacityRequests::Observe(const cache::PodInfo& pod, bool removed, std::string& pool) {
  if (pod.namespace_ != options_.namespace_ || !pod.labels.contains(kPlaceholderLabel)) return false;
  auto gang = pod.annotations.find(kPlaceholderGangAnnotation);
  auto owner = pod.annotations.find(kPlaceholderPoolAnnotation);
  if (gang == pod.annotations.end() || owner == pod.annotations.end()) return true;  // Not one we made.
  pool = owner->second;
  std::lock_guard lock(mu_);
  auto it = requests_.find(gang->second);
  if (removed || pod.deleting) {
    if (it == requests_.end()) return true;
    it->second.placeholders.erase(pod.name);
    spdlog::debug(logging::JsonFields("placeholder gone", "pod", pod.Key(), "gang", gang->second));
    if (it->second.placeholders.empty() && it->second.landed == 0) requests_.erase(it);
    return true;
  }
  if (it == requests_.end()) {
    // Not asked by this process (yet): a request of an earlier leader, dated from its placeholders, or
    // one Ask is still making, which then sets what it asked for.
    Request r;
    r.pool = pool;
    r.asked_at = base::ParseEpochSeconds(pod.creation_timestamp).value_or(0);
    r.first_asked = r.asked_at;
    r.where = "the pool";
    r.adopted = true;
    it = requests_.emplace(gang->second, std::move(r)).first;
  }
  if (it->second.adopted && !it->second.placeholders.contains(pod.name)) ++it->second.nodes;
  it->second.placeholders[pod.name] = pod;
  return true;
}

std::map<std::string, CapacityNote> CapacityRequests::Reconcile(const std::string& pool, const cache::PoolConfig& config,
                                                                const std::vector<CapacityAsk>& asks,
                                                                const std::set<std::string>& waiting,
                                                                const std::set<std::string>& admitted, double now) {
  std::vector<cache::PodInfo> doomed;  // Deleted after the lock is let go: writes are HTTP calls.
  {
    std::lock_guard lock(mu_);
    Sweep(pool, config, waiting, admitted, now, doomed);
    YieldYoungestStalled(pool, config, now, doomed);
  }
  for (const cache::PodInfo& pod : doomed) {
    try {
      writer_.DeletePod(pod, 0);
    } catch (const std::exception& e) {
      spdlog::warn(logging::JsonFields("placeholder not deleted", "pod", pod.Key(), "error", e.what()));
    }
  }
  std::map<std::string, CapacityNote> notes;
  {
    std::lock_guard lock(mu_);
    spaced_.erase(pool);
  }
  for (const CapacityAsk& ask : asks) {
    if (!ask.nodes) {
      notes[ask.gang_key] = {reasons::kAutoscalerCannotHold, ask.why, true};
      continue;
    }
    if (ask.nodes->count() == 0) continue;  // Room enough once what is freed arrives: the round's reason stands.
    bool asked = false;
    {
      std::lock_guard lock(mu_);
      asked = requests_.contains(ask.gang_key);
      if (auto wait = yielded_.find(ask.gang_key); !asked && wait != yielded_.end() && wait->second.until > now) {
        notes[ask.gang_key] = {reasons::kAwaitingNodes,
                               "gave way to an older gang of the pool the autoscaler could not serve together with it",
                               false};
        continue;
      }
    }
    if (!asked) {
      {
        std::lock_guard lock(mu_);
        auto last = last_ask_.find(pool);
        if (last != last_ask_.end() && now - last->second < kAskSpacingSeconds) {
          spaced_.insert(pool);  // Asked in the next second's round.
          continue;
        }
        last_ask_[pool] = now;
      }
      Ask(pool, config, ask, now);
    }
    std::lock_guard lock(mu_);
    auto it = requests_.find(ask.gang_key);
    if (it != requests_.end()) notes[ask.gang_key] = NoteOf(it->second, config);
    // else: creating failed (logged), asked again next round.
  }
  return notes;
}

void CapacityRequests::Sweep(const std::string& pool, const cache::PoolConfig& config, const std::set<std::string>& waiting,
                             const std::set<std::string>& admitted, double now, std::vector<cache::PodInfo>& doomed) {
  for (auto it = requests_.begin(); it != requests_.end();) {
    Request& r = it->second;
    if (r.pool != pool) {
      ++it;
      continue;
    }
    if (waiting.contains(it->first)) {
      r.absent_since = -1;
    } else if (r.absent_since < 0) {
      r.absent_since = now;
    }
    const bool done = admitted.contains(it->first) || (r.absent_since >= 0 && now - r.absent_since >= kAbsentSeconds);
    int landed = 0;
    for (const auto& [name, pod] : r.placeholders) landed += pod.node_name.empty() ? 0 : 1;
    // Landed placeholders keep their nodes until all have landed (an autoscaler removes empty nodes);
    // then they all go at once and the next round finds the whole gang's room.
    const bool all_landed = !r.placeholders.empty() && landed == static_cast<int>(r.placeholders.size());
    if (!done && !all_landed && !r.placeholders.empty() &&
        now - r.asked_at > config.autoscaling.provision_timeout_seconds) {
      // Unserved in time (a NodePool's limit, no instance type, no capacity): said, and the pending
      // placeholders stay, so the autoscaler keeps trying them and the nodes it did add stay held.
      r.stalled = true;
      r.stalled_now = true;
      r.asked_at = now;  // Said again after another timeout.
    }
    r.landed_now = landed;
    if (done || all_landed) {
      for (auto& [name, pod] : r.placeholders) doomed.push_back(pod);
      r.placeholders.clear();
      if (all_landed) {
        r.landed = landed;
        r.last_landed = now;
      }
    }
    const bool settled = r.placeholders.empty() && (r.landed == 0 || now - r.last_landed > kSettleSeconds);
    if (done || settled) {
      spdlog::debug(logging::JsonFields("capacity request closed", "gang", it->first, "why",
                                        done ? "no longer waiting" : r.landed > 0 ? "its nodes settled" : "no placeholder left"));
      it = requests_.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(yielded_, [&](const auto& y) {
    return y.second.pool == pool && (y.second.until <= now || !waiting.contains(y.first));
  });
}

// Two gangs each holding part of what the autoscaler can add (a NodePool's limit) would wait for each
// other for ever: when a request stalls while an older one is stalled too, the youngest stalled request
// of the pool gives its placeholders (and the nodes they hold) up and asks again only after a timeout.
void CapacityRequests::YieldYoungestStalled(const std::string& pool, const cache::PoolConfig& config, double now,
                                            std::vector<cache::PodInfo>& doomed) {
  int stalled = 0;
  bool fresh = false;
  auto youngest = requests_.end();
  for (auto it = requests_.begin(); it != requests_.end(); ++it) {
    Request& r = it->second;
    if (r.pool != pool || !r.stalled || r.placeholders.empty()) continue;
    ++stalled;
    fresh = fresh || r.stalled_now;
    r.stalled_now = false;
    if (youngest == requests_.end() || r.first_asked > youngest->second.first_asked) youngest = it;
  }
  if (stalled < 2 || !fresh) return;
  spdlog::info(logging::JsonFields("gang gave way to older ones the autoscaler cannot serve with it", "gang",
                                   youngest->first, "pool", pool));
  for (auto& [name, pod] : youngest->second.placeholders) doomed.push_back(pod);
  yielded_[youngest->first] = {pool, now + config.autoscaling.provision_timeout_seconds};
  requests_.erase(youngest);
}

CapacityNote CapacityRequests::NoteOf(const Request& r, const cache::PoolConfig& config) const {
  if (r.placeholders.empty()) {
    return {reasons::kAwaitingNodes, "the autoscaler added the " + Nodes(r.nodes) + " asked for in " + r.where, false};
  }
  if (r.stalled) {
    return {reasons::kNodesNotProvisioned,
            "the autoscaler has added room for " + std::to_string(r.landed_now) + " of the " +
                std::to_string(r.placeholders.size()) + " members asked for (" + Nodes(r.nodes) + " in " + r.where +
                "), not all within " + std::to_string(config.autoscaling.provision_timeout_seconds) + " s; still asking",
            true};
  }
  return {reasons::kAwaitingNodes, "asked the autoscaler for " + Nodes(r.nodes) + " in " + r.where, false};
}

void CapacityRequests::Ask(const std::string& pool, const cache::PoolConfig& config, const CapacityAsk& ask, double now) {
  const engine::NewNodes& nodes = *ask.nodes;
  Request r;
  r.pool = pool;
  r.asked_at = now;
  r.nodes = nodes.count();
  r.where = nodes.domain_value.empty() ? "the pool" : ask.domain_label + "=" + nodes.domain_value;
  const std::string hash = GangHash(ask.gang_key);
  int i = 0;
  for (const std::vector<int>& node : nodes.members) {
    for (int m : node) {
      const std::string name = "capacity-" + hash + "-" + std::to_string(i++);
      try {
        const Json pod = PlaceholderPod(name, pool, ask.gang_key, config, ask.members.at(static_cast<size_t>(m)),
                                        ask.domain_label, nodes.domain_value);
        r.placeholders[name] = writer_.CreatePod(pod);
      } catch (const std::exception& e) {
        spdlog::warn(logging::JsonFields("placeholder not created", "gang", ask.gang_key, "pod", name, "error", e.what()));
        for (auto& [n, made] : r.placeholders) {
          try {
            writer_.DeletePod(made, 0);
          } catch (const std::exception&) {
          }
        }
        return;
      }
    }
  }
  spdlog::info(logging::JsonFields("nodes asked of the autoscaler", "gang", ask.gang_key, "pool", pool, "nodes",
                                   std::to_string(r.nodes), "where", r.where));
  std::lock_guard lock(mu_);
  Request& stored = requests_[ask.gang_key];
  // The informer may already have reported some of them: keep what it said.
  for (auto& [name, info] : r.placeholders) stored.placeholders.try_emplace(name, std::move(info));
  stored.pool = r.pool;
  stored.asked_at = r.asked_at;
  stored.first_asked = r.asked_at;
  stored.nodes = r.nodes;
  stored.where = r.where;
  stored.adopted = false;
}

double CapacityRequests::NextDeadline(const std::string& pool, const cache::PoolConfig& config) const {
  std::lock_guard lock(mu_);
  double next = std::numeric_limits<double>::infinity();
  for (const auto& [key, r] : requests_) {
    if (r.pool != pool) continue;
    if (!r.placeholders.empty()) next = std::min(next, r.asked_at + config.autoscaling.provision_timeout_seconds + 0.5);
    else if (r.landed > 0) next = std::min(next, r.last_landed + kSettleSeconds + 0.5);
    if (r.absent_since >= 0) next = std::min(next, r.absent_since + kAbsentSeconds);
  }
  for (const auto& [key, y] : yielded_) {
    if (y.pool == pool) next = std::min(next, y.until + 0.5);
  }
  if (spaced_.contains(pool)) next = std::min(next, last_ask_.at(pool) + kAskSpacingSeconds);
  return next;
}

Json CapacityRequests::PlaceholderPod(const std::string& name, const std::string& pool, const std::string& gang_key,
                                      const cache::PoolConfig& config, const engine::PodRequest& member,
                                      const std::string& domain_label, const std::string& domain) const {
  Json selector = Json::object();
  for (const auto& [k, v] : config.node_selector) selector[k] = v;
  for (const auto& [k, v] : config.autoscaling.node_selector) selector[k] = v;
  if (!domain.empty()) selector[domain_label] = domain;
  const std::string gpus = std::to_string(member.gpu_count);
  Json requests{{std::string(cache::kGpuResource), gpus}};
  if (member.host.cpu_milli > 0) requests["cpu"] = std::to_string(member.host.cpu_milli) + "m";
  if (member.host.memory_mib > 0) requests["memory"] = std::to_string(member.host.memory_mib) + "Mi";
  return Json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", name},
                {"namespace", options_.namespace_},
                {"labels", {{kPlaceholderLabel, GangHash(gang_key)}, {"app.kubernetes.io/managed-by", "gangplank"}}},
                // Its node is kept while the rest of the gang's nodes come (kept for the gang's members after).
                {"annotations",
                 {{kPlaceholderGangAnnotation, gang_key}, {kPlaceholderPoolAnnotation, pool}, {kDoNotDisruptAnnotation, "true"}}}}},
              {"spec",
               {{"schedulerName", options_.scheduler},
                {"nodeSelector", selector},
                {"tolerations", TolerationsOf(member)},
                {"terminationGracePeriodSeconds", 0},
                {"automountServiceAccountToken", false},
                {"enableServiceLinks", false},
                {"containers",
                 Json::array({{{"name", "capacity"},
                               {"image", options_.image},
                               {"resources",
                                {{"requests", requests}, {"limits", {{std::string(cache::kGpuResource), gpus}}}}}}})}}}};
}

}  // namespace gangplank::op
