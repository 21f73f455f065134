// The GPUPool test CRD (tests/kubectl/testdata/gpupool-with-queues.crd.yaml) as input, plus small helpers.
#pragma once

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "apiserver-double/schema/custom_resource_schema.h"
#include "tests/support/yaml_json.h"

namespace gangplank::apiserver_double::schema::testing {

inline nlohmann::json gpupool_crd() {
  std::ifstream in(std::string(GANGPLANK_TESTDATA_DIR) + "/gpupool-with-queues.crd.yaml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return gangplank::testing::ParseYamlDocuments(text).at(0);
}

inline nlohmann::json gpupool_open_api() { return gpupool_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]; }

inline std::shared_ptr<const CustomResourceSchema> compiled(const nlohmann::json& open_api) {
  FieldErrors errors;
  auto s = CustomResourceSchema::Compile(open_api, "spec.versions[0].schema.openAPIV3Schema", errors);
  if (!errors.empty()) throw std::runtime_error(errors.front().text());
  return s;
}

inline nlohmann::json pool(nlohmann::json spec) {
  return {{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "GPUPool"}, {"metadata", {{"name", "bad"}}}, {"spec", std::move(spec)}};
}

// Every error's "field: body" text, in order.
inline std::vector<std::string> texts(const FieldErrors& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.text());
  return out;
}

}  // namespace gangplank::apiserver_double::schema::testing
