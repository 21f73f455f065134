#include "operator/service/native_pod_groups.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <memory>
#include <optional>

#include "cache/objects/gang_identity.h"
#include "kube/discovery.h"
#include "logging/json_log.h"

namespace gangplank::op {
namespace {

// The PodGroup's spec. Its registry strategy does not move metadata.generation on a spec change (1.37), so
// the spec itself tells a change of terms from a status write (kube-scheduler's or gangplank's own).
nlohmann::json SpecOf(const kube::GenericObject& group) {
  try {
    return nlohmann::json::parse(group.json).value("spec", nlohmann::json());
  } catch (const nlohmann::json::exception&) {
    return nullptr;  // Unreadable: as if empty; the resolver says what is wrong with it.
  }
}

}  // namespace

bool WatchNativePodGroups(cache::SharedInformers& informers, const std::atomic<bool>& stopping,
                          std::function<void(const std::string& gang_key)> changed) {
  const std::optional<bool> served =
      kube::AskUntilTold(*informers.client(), kube::resources::PodGroups(), stopping, [](const std::string& error) {
        spdlog::warn(logging::JsonFields("cannot tell whether scheduling.k8s.io/v1beta1 PodGroups are served; asking again",
                                         "error", error));
      });
  if (!served.value_or(false)) {
    if (served) spdlog::info(logging::JsonFields("scheduling.k8s.io/v1beta1 PodGroups are not served: not watched"));
    return false;
  }
  auto note = [changed = std::move(changed)](const kube::ObjectMeta& m) {
    changed(cache::NativePodGroupKey(m.namespace_, m.name));
  };
  informers.objects(kube::resources::PodGroups()).AddHandlers({
      [note](const auto& g) { note(g->meta); },
      [note](const auto& old, const auto& g) {
        if (SpecOf(*old) != SpecOf(*g)) note(g->meta);
      },
      [note](const auto& g, bool) { note(g->meta); },
  });
  return true;
}

}  // namespace gangplank::op
