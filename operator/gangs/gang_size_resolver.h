// Works out how many members each gang needs (gang_size.h), reading the object that defines it
// (PodGroup, Job, JobSet, PyTorchJob, ..., RayCluster) through an ObjectReader and remembering the
// answer for a while, so a reconcile costs an API read per gang at most once per `ttl` (5 s at most for
// a native PodGroup, whose minCount is mutable; the controller's PodGroup watch forgets a changed one at
// once).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "operator/gangs/gang_size.h"
#include "operator/gangs/gang_tracker.h"

namespace gangplank::op {

class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  // The object, or nullopt when it does not exist (or its kind is not served). Throws on other errors.
  virtual std::optional<nlohmann::json> Get(const std::string& api_version, const std::string& kind,
                                            const std::string& namespace_, const std::string& name) = 0;
};

struct SizeVerdict {
  std::optional<GangSize> size;
  std::string reason;   // CamelCase when !size: GangSizeUnknown.
  std::string message;
};

class GangSizeResolver {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  explicit GangSizeResolver(ObjectReader& reader, std::chrono::seconds ttl = std::chrono::seconds(30), Clock clock = {});

  // Lone pods: 1. gangplank.io/gang: the gang-size annotation, else every member present. Otherwise the
  // defining object's size.
  SizeVerdict SizeOf(const Gang& gang);
  void Forget(const std::string& gang_key);
  // The defining object's UID from the last read, if any (no API call).
  std::string UidOf(const std::string& gang_key) const;
  std::size_t cached() const;  // Entries held (expired ones are swept as the cache grows).

 private:
  struct Entry {
    SizeVerdict verdict;
    std::chrono::steady_clock::time_point at;
    std::chrono::seconds ttl;
  };
  struct WorkloadEntry {
    std::string wording;  // WorkloadWording, or the Workload named as not found.
    std::chrono::steady_clock::time_point at;
  };
  static constexpr std::chrono::seconds kNativeGroupTtl{5};
  SizeVerdict Read(const Gang& gang);
  std::string WorkloadOf(const std::string& namespace_, const nlohmann::json& group);
  void SweepExpiredLocked(std::chrono::steady_clock::time_point now);

  ObjectReader& reader_;
  std::chrono::seconds ttl_;
  Clock clock_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> cache_;
  std::map<std::string, WorkloadEntry> workloads_;  // By "<namespace>/<Workload>", kept `ttl_`.
  std::size_t sweep_at_ = 64;  // Sweep when the cache reaches this size: twice what the last sweep left.
};

}  // namespace gangplank::op
