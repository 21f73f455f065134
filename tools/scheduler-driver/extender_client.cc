#include "tools/scheduler-driver/extender_client.h"

#include <set>

namespace gangplank::scheduler_driver {
namespace {

using Json = nlohmann::json;

std::string ArgsBody(std::string_view pod_json, const std::vector<std::string>& nodes) {
  std::string body = "{\"Pod\":";
  body.append(pod_json);
  body.append(",\"Nodes\":null,\"NodeNames\":");
  body.append(Json(nodes).dump());
  body.push_back('}');
  return body;
}

std::string StringOr(const Json* value, std::string fallback = "") {
  return value != nullptr && value->is_string() ? value->get<std::string>() : fallback;
}

std::map<std::string, std::string> NodeReasons(const Json* map) {
  std::map<std::string, std::string> out;
  if (map == nullptr || !map->is_object()) return out;
  for (const auto& [node, reason] : map->items()) out[node] = reason.is_string() ? reason.get<std::string>() : "";
  return out;
}

void ThrowIfError(const Json& reply) {
  if (std::string error = StringOr(FindField(reply, "Error")); !error.empty()) throw ExtenderError(error);
}

}  // namespace

const Json* FindField(const Json& object, std::string_view name) {
  if (!object.is_object()) return nullptr;
  if (auto exact = object.find(std::string(name)); exact != object.end()) return &*exact;
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (net::iequals(it.key(), name)) return &it.value();
  }
  return nullptr;
}

ExtenderClient::ExtenderClient(ExtenderOptions options, std::unique_ptr<net::HttpClient> http)
    : options_(std::move(options)), http_(std::move(http)) {
  if (!http_) http_ = net::MakeHttpClient({options_.base_url, {}});
}

Json ExtenderClient::Post(const std::string& verb, std::string body) {
  net::HttpClientRequest request;
  request.method = "POST";
  request.target = options_.path_prefix + "/" + verb;
  request.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  request.body = std::move(body);
  request.timeout = options_.timeout;
  const std::string url = options_.url(verb);
  net::HttpClientResponse response;
  try {
    response = http_->Send(request);
  } catch (const net::TransportError& e) {
    throw ExtenderError("Post \"" + url + "\": " + e.what());
  }
  if (response.status != 200) {
    throw ExtenderError("failed " + verb + " with extender at URL " + url + ", code " + std::to_string(response.status));
  }
  Json reply = Json::parse(response.body, nullptr, false);
  if (reply.is_discarded()) throw ExtenderError("cannot decode the " + verb + " reply of extender at URL " + url);
  return reply;
}

FilterResult ExtenderClient::Filter(std::string_view pod_json, const std::vector<std::string>& nodes) {
  const Json reply = Post(options_.filter_verb, ArgsBody(pod_json, nodes));
  if (!reply.is_object() && !reply.is_null()) throw ExtenderError("filter reply is not an ExtenderFilterResult");
  ThrowIfError(reply);
  FilterResult result;
  const std::set<std::string, std::less<>> asked(nodes.begin(), nodes.end());
  if (const Json* names = FindField(reply, "NodeNames"); names != nullptr && names->is_array()) {
    for (const auto& name : *names) {
      const std::string node = name.is_string() ? name.get<std::string>() : name.dump();
      if (!asked.contains(node)) {
        throw ExtenderError("extender " + options_.url(options_.filter_verb) + " claims a filtered node \"" + node +
                            "\" which is not found in the input node list");
      }
      result.passed.push_back(node);
    }
  } else if (const Json* list = FindField(reply, "Nodes"); list != nullptr) {
    // NodeNames null: kube-scheduler falls back to the NodeList.
    if (const Json* items = FindField(*list, "items"); items != nullptr && items->is_array()) {
      for (const auto& item : *items) {
        const Json* meta = FindField(item, "metadata");
        if (meta != nullptr) result.passed.push_back(StringOr(FindField(*meta, "name")));
      }
    }
  }
  result.unresolvable = NodeReasons(FindField(reply, "FailedAndUnresolvableNodes"));
  for (auto& [node, reason] : NodeReasons(FindField(reply, "FailedNodes"))) {
    if (!result.unresolvable.contains(node)) result.failed.emplace(node, std::move(reason));
  }
  return result;
}

std::vector<HostPriority> ExtenderClient::Prioritize(std::string_view pod_json, const std::vector<std::string>& nodes) {
  const Json reply = Post(options_.prioritize_verb, ArgsBody(pod_json, nodes));
  std::vector<HostPriority> scores;
  if (reply.is_null()) return scores;
  if (!reply.is_array()) throw ExtenderError("prioritize reply is not a HostPriorityList");
  const std::set<std::string, std::less<>> asked(nodes.begin(), nodes.end());
  for (const auto& entry : reply) {
    const std::string host = StringOr(FindField(entry, "Host"));
    const Json* score = FindField(entry, "Score");
    if (!asked.contains(host) || score == nullptr || !score->is_number_integer()) continue;
    scores.push_back({host, score->get<std::int64_t>()});
  }
  return scores;
}

void ExtenderClient::Bind(const kube::Pod& pod, const std::string& node) {
  const Json args{{"PodName", pod.meta.name}, {"PodNamespace", pod.meta.namespace_}, {"PodUID", pod.meta.uid}, {"Node", node}};
  const Json reply = Post(options_.bind_verb, args.dump());
  ThrowIfError(reply);
}

}  // namespace gangplank::scheduler_driver
