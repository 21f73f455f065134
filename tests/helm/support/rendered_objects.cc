#include "tests/helm/support/rendered_objects.h"

#include <gtest/gtest.h>

#include "tests/support/yaml_json.h"

namespace gangplank::helm_testing {

RenderedObjects::RenderedObjects(const std::string& yaml) {
  try {
    for (auto& doc : gangplank::testing::ParseYamlDocuments(yaml)) {
      if (doc.is_object() && !doc.empty()) objects_.push_back(std::move(doc));
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "rendered YAML does not parse: " << e.what();
  }
}

std::vector<json> RenderedObjects::of_kind(const std::string& kind) const {
  std::vector<json> out;
  for (const auto& o : objects_) {
    if (o.value("kind", "") == kind) out.push_back(o);
  }
  return out;
}

std::optional<json> RenderedObjects::find(const std::string& kind, const std::string& name) const {
  for (const auto& o : objects_) {
    if (o.value("kind", "") == kind && o.value("/metadata/name"_json_pointer, std::string()) == name) return o;
  }
  return std::nullopt;
}

json RenderedObjects::get(const std::string& kind, const std::string& name) const {
  auto o = find(kind, name);
  if (!o) {
    ADD_FAILURE() << "no " << kind << " named " << name << " was rendered";
    return json::object();
  }
  return *o;
}

std::optional<json> RenderedObjects::deployment_with_container(const std::string& container) const {
  for (const auto& d : of_kind("Deployment")) {
    if (!container_named(d["spec"]["template"]["spec"], container).empty()) return d;
  }
  return std::nullopt;
}

json container_named(const json& pod_spec, const std::string& name) {
  if (pod_spec.contains("containers")) {
    for (const auto& c : pod_spec["containers"]) {
      if (c.value("name", "") == name) return c;
    }
  }
  return json::object();
}

std::multimap<std::string, std::string> parse_args(const json& container) {
  std::multimap<std::string, std::string> out;
  for (const auto& a : container.value("args", json::array())) {
    const std::string arg = a.get<std::string>();
    const auto eq = arg.find('=');
    if (eq == std::string::npos) {
      out.emplace(arg, "");
    } else {
      out.emplace(arg.substr(0, eq), arg.substr(eq + 1));
    }
  }
  return out;
}

std::string arg_value(const json& container, const std::string& flag) {
  const auto args = parse_args(container);
  auto it = args.find(flag);
  return it == args.end() ? "" : it->second;
}

bool has_flag(const json& container, const std::string& flag) { return parse_args(container).count(flag) > 0; }

}  // namespace gangplank::helm_testing
