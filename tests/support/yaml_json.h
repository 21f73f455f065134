// YAML documents as JSON for the suites: charts, manifests, examples, configurations. Plain scalars get
// YAML 1.2 core types (null, bool, int, float); quoted scalars stay strings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gangplank::testing {

// Every document in `text`; throws std::runtime_error with the parser's line/column on bad YAML.
std::vector<nlohmann::json> ParseYamlDocuments(const std::string& text);

}  // namespace gangplank::testing
