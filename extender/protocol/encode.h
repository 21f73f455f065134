// Encoding of extender replies exactly as Go's encoding/json writes the kube-scheduler types: Go field
// names in struct order, no omitted fields (null for nil pointers and maps), map keys sorted, Go's
// string escaping. Each function returns the complete body.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "extender/protocol/extender_types.h"

namespace gangplank::extender {

std::string EncodeFilterResult(const ExtenderFilterResult& result);
// HostPriorityList: a bare JSON array. hosts_plain: every host is known to be plain JSON (the request's
// names were, ExtenderArgs::names_plain), so it is not checked again.
std::string EncodeHostPriorityList(const std::vector<HostPriority>& list, bool hosts_plain = false);
std::string EncodePreemptionResult(const ExtenderPreemptionResult& result);
std::string EncodeBindingResult(const ExtenderBindingResult& result);
// {"Error":"<message>"}: the body of every 4xx/5xx reply, readable as any result type's Error.
std::string EncodeErrorBody(std::string_view message);

}  // namespace gangplank::extender
