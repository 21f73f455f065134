// Whether the API server serves a resource, by one discovery request (GET /apis/<group>/<version>, or
// /api/v1 for the core group), as client-go's discovery client tells it. Kinds behind a feature gate
// (DRA before 1.34, Kubernetes' own PodGroups in 1.37) are watched only where this says yes, so a
// cluster without them gets one line in the log rather than a watch failing forever.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "kube/resource.h"
#include "kube/rest_client.h"

namespace gangplank::kube {

// True when the group version lists `resource.plural`; false when the group version is not served (404)
// or is served without that resource (a gated kind of a served version). Throws when the API server
// cannot tell now (unreachable, 5xx, forbidden, an unreadable answer): ask again later.
bool ServesResource(RestClient& client, const ResourceDescriptor& resource);

// ServesResource asked once a second until the API server can tell, `cannot_tell` called with each
// error; nullopt when `stopping` was set first.
std::optional<bool> AskUntilTold(RestClient& client, const ResourceDescriptor& resource, const std::atomic<bool>& stopping,
                                 const std::function<void(const std::string& error)>& cannot_tell);

}  // namespace gangplank::kube
