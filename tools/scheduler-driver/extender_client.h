// kube-scheduler's HTTPExtender with nodeCacheCapable: true: POST <urlPrefix>/<verb> with ExtenderArgs
// {"Pod": <the pod as the informer has it>, "Nodes": null, "NodeNames": [...]}, only HTTP 200 accepted,
// replies decoded as Go's encoding/json does (field names case-insensitive, null = zero value).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kube/objects.h"
#include "net/http_client.h"
#include "tools/scheduler-driver/driver_options.h"

namespace gangplank::scheduler_driver {

// The extender could not be used for this call: transport failure or timeout, a status other than 200,
// a reply that is not the verb's JSON, a non-empty `Error`, or a filter reply naming a node that was not
// asked about. The text is kube-scheduler's wording where it has one.
class ExtenderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FilterResult {
  std::vector<std::string> passed;
  std::map<std::string, std::string> failed;        // FailedNodes (those not also unresolvable)
  std::map<std::string, std::string> unresolvable;  // FailedAndUnresolvableNodes
};

struct HostPriority {
  std::string host;
  std::int64_t score = 0;
};

class ExtenderClient {
 public:
  // `http` defaults to net::make_http_client for options.base_url.
  explicit ExtenderClient(ExtenderOptions options, std::unique_ptr<net::HttpClient> http = nullptr);

  FilterResult Filter(std::string_view pod_json, const std::vector<std::string>& nodes);
  // Hosts not asked about are dropped (kube-scheduler ignores them).
  std::vector<HostPriority> Prioritize(std::string_view pod_json, const std::vector<std::string>& nodes);
  // ExtenderBindingArgs; throws ExtenderError with the extender's `Error` when it refused.
  void Bind(const kube::Pod& pod, const std::string& node);

  const ExtenderOptions& options() const { return options_; }

 private:
  nlohmann::json Post(const std::string& verb, std::string body);

  ExtenderOptions options_;
  std::unique_ptr<net::HttpClient> http_;
};

// Go's case-insensitive field match: the exact name first, then any casing. nullptr when absent.
const nlohmann::json* FindField(const nlohmann::json& object, std::string_view name);

}  // namespace gangplank::scheduler_driver
