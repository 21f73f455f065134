#include "tests/support/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <regex>
#include <stdexcept>

namespace gangplank::testing {
namespace {

nlohmann::json ScalarToJson(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() != "?") return text;  // quoted or explicitly tagged: keep as string
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  static const std::regex integer("[-+]?[0-9]+");
  static const std::regex decimal("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  try {
    if (std::regex_match(text, integer)) return std::stoll(text);
    if (std::regex_match(text, decimal)) return std::stod(text);
  } catch (const std::out_of_range&) {
    return text;
  }
  return text;
}

nlohmann::json to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return ScalarToJson(node);
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = to_json(kv.second);
      return out;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<nlohmann::json> ParseYamlDocuments(const std::string& text) {
  std::vector<nlohmann::json> out;
  try {
    for (const auto& doc : YAML::LoadAll(text)) {
      auto j = to_json(doc);
      if (!j.is_null()) out.push_back(std::move(j));
    }
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("invalid YAML: ") + e.what());
  }
  return out;
}

}  // namespace gangplank::testing
