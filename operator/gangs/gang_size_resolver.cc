#include "operator/gangs/gang_size_resolver.h"

#include <algorithm>

#include "cache/objects/decode_error.h"
#include "operator/reasons.h"

namespace gangplank::op {

GangSizeResolver::GangSizeResolver(ObjectReader& reader, std::chrono::seconds ttl, Clock clock)
    : reader_(reader), ttl_(ttl), clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })) {}

SizeVerdict GangSizeResolver::SizeOf(const Gang& gang) {
  switch (gang.identity.source) {
    case cache::GangSource::kLone:
      return {GangSize{1, "a lone pod"}, "", ""};
    case cache::GangSource::kGangLabel: {
      for (const Member& m : gang.members) {
        try {
          if (auto size = GangSizeAnnotation(m.pod)) return {GangSize{*size, "annotation gangplank.io/gang-size"}, "", ""};
        } catch (const cache::DecodeError& e) {
          return {std::nullopt, reasons::kGangSizeUnknown, "pod " + m.pod.name + ": " + e.what()};
        }
      }
      int present = 0;
      for (const Member& m : gang.members) present += m.deleting() ? 0 : 1;
      return {GangSize{present, "every pod of the gang present (no gangplank.io/gang-size annotation)"}, "", ""};
    }
    case cache::GangSource::kNativePodGroup:
    case cache::GangSource::kPodGroup:
    case cache::GangSource::kOwner:
      break;
  }
  const auto now = clock_();
  {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(gang.key); it != cache_.end() && now - it->second.at < it->second.ttl) return it->second.verdict;
  }
  SizeVerdict verdict = Read(gang);
  // A native PodGroup's minCount may change at any time (scaling a workload): read it again sooner.
  const auto ttl = gang.identity.source == cache::GangSource::kNativePodGroup ? std::min(ttl_, kNativeGroupTtl) : ttl_;
  std::lock_guard lock(mu_);
  cache_[gang.key] = Entry{verdict, now, ttl};
  if (cache_.size() >= sweep_at_) SweepExpiredLocked(now);
  return verdict;
}

// Gangs that went are never asked about again: without a sweep their entries would stay for good.
// Sweeping when the cache doubles keeps the cost per call constant.
void GangSizeResolver::SweepExpiredLocked(std::chrono::steady_clock::time_point now) {
  std::erase_if(cache_, [&](const auto& entry) { return now - entry.second.at >= entry.second.ttl; });
  std::erase_if(workloads_, [&](const auto& entry) { return now - entry.second.at >= ttl_; });
  sweep_at_ = std::max<std::size_t>(64, 2 * cache_.size());
}

std::size_t GangSizeResolver::cached() const {
  std::lock_guard lock(mu_);
  return cache_.size();
}

SizeVerdict GangSizeResolver::Read(const Gang& gang) {
  const cache::GangIdentity& id = gang.identity;
  const std::string what = id.kind + " " + gang.namespace_ + "/" + id.name;
  try {
    auto object = reader_.Get(id.api_version, id.kind, gang.namespace_, id.name);
    if (!object) return {std::nullopt, reasons::kGangSizeUnknown, what + " (" + id.api_version + ") does not exist"};
    GangSize size = GangSizeOf(id, gang.namespace_, *object);
    if (id.source == cache::GangSource::kNativePodGroup) size.source += WorkloadOf(gang.namespace_, *object);
    return {std::move(size), "", ""};
  } catch (const cache::DecodeError& e) {
    return {std::nullopt, reasons::kGangSizeUnknown, e.what()};
  } catch (const std::exception& e) {
    return {std::nullopt, reasons::kGangSizeUnknown, "cannot read " + what + ": " + e.what()};
  }
}

// ", template t of Workload ml/train (...)" for a PodGroup made from a Workload's template; "" when there
// is none. A Workload that cannot be read is named only (the wording explains: the size stands without
// it). Its wording is kept for the resolver's ttl, not the PodGroup's shorter one: a Workload's templates
// and owner do not change what a PodGroup's minCount does, so it is not read again every few seconds.
std::string GangSizeResolver::WorkloadOf(const std::string& namespace_, const nlohmann::json& group) {
  const auto spec = group.find("spec");
  if (spec == group.end() || !spec->is_object()) return "";
  const auto ref = spec->find("workloadRef");
  if (ref == spec->end() || !ref->is_object()) return "";
  const auto workload_name = ref->find("workloadName");
  if (workload_name == ref->end() || !workload_name->is_string()) return "";
  const std::string name = workload_name->get<std::string>();
  const auto template_it = ref->find("templateName");
  const std::string template_name = template_it != ref->end() && template_it->is_string() ? template_it->get<std::string>() : "?";
  const std::string key = namespace_ + "/" + name;
  const auto now = clock_();
  {
    std::lock_guard lock(mu_);
    if (auto it = workloads_.find(key); it != workloads_.end() && now - it->second.at < ttl_) {
      return ", template " + template_name + " of " + it->second.wording;
    }
  }
  std::string wording;
  try {
    auto workload = reader_.Get(cache::kNativePodGroupApiVersion, "Workload", namespace_, name);
    wording = workload ? WorkloadWording(namespace_, *workload) : "Workload " + key + " (not found)";
  } catch (const std::exception&) {
    return ", template " + template_name + " of Workload " + key;
  }
  std::lock_guard lock(mu_);
  workloads_[key] = WorkloadEntry{wording, now};
  return ", template " + template_name + " of " + wording;
}

std::string GangSizeResolver::UidOf(const std::string& gang_key) const {
  std::lock_guard lock(mu_);
  auto it = cache_.find(gang_key);
  return it == cache_.end() || !it->second.verdict.size ? std::string() : it->second.verdict.size->uid;
}

void GangSizeResolver::Forget(const std::string& gang_key) {
  std::lock_guard lock(mu_);
  cache_.erase(gang_key);
}

}  // namespace gangplank::op
