#include "base/pod_requests.h"

#include <algorithm>
#include <limits>

namespace gangplank::base {
namespace {

std::int64_t SaturatingAdd(std::int64_t a, std::int64_t b) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (b > 0 && a > kMax - b) return kMax;
  return a + b;
}

std::int64_t* Find(Amounts& amounts, const std::string& name) {
  for (auto& [n, v] : amounts) {
    if (n == name) return &v;
  }
  return nullptr;
}

// Requests, with limits standing in for the missing ones.
Amounts Effective(const ContainerAmounts& c) {
  Amounts out = c.requests;
  for (const auto& [name, limit] : c.limits) {
    if (Find(out, name) == nullptr) out.emplace_back(name, limit);
  }
  return out;
}

void Add(Amounts& total, const Amounts& more) {
  for (const auto& [name, v] : more) {
    if (std::int64_t* t = Find(total, name)) *t = SaturatingAdd(*t, v);
    else total.emplace_back(name, v);
  }
}

void Max(Amounts& total, const Amounts& other) {
  for (const auto& [name, v] : other) {
    if (std::int64_t* t = Find(total, name)) *t = std::max(*t, v);
    else total.emplace_back(name, v);
  }
}

}  // namespace

bool PodLevelResource(const std::string& name) {
  return name == "cpu" || name == "memory" || name.rfind("hugepages-", 0) == 0;
}

Amounts PodRequests(const std::vector<ContainerAmounts>& containers, const std::vector<ContainerAmounts>& init_containers,
                    const ContainerAmounts* pod_level, const Amounts& overhead) {
  Amounts app;
  for (const ContainerAmounts& c : containers) Add(app, Effective(c));
  Amounts sidecars;  // Those started so far, in order: a regular init container runs beside them.
  Amounts init;
  for (const ContainerAmounts& c : init_containers) {
    const Amounts own = Effective(c);
    if (c.sidecar) {
      Add(app, own);
      Add(sidecars, own);
      // A sidecar's own start runs beside the sidecars before it.
      Max(init, sidecars);
      continue;
    }
    Amounts running = sidecars;
    Add(running, own);
    Max(init, running);
  }
  Amounts total = app;
  Max(total, init);
  if (pod_level != nullptr) {
    for (const auto& [name, v] : Effective(*pod_level)) {
      if (!PodLevelResource(name)) continue;
      if (std::int64_t* t = Find(total, name)) *t = v;
      else total.emplace_back(name, v);
    }
  }
  Add(total, overhead);
  return total;
}

}  // namespace gangplank::base
