// Label selectors (=, ==, !=, in, notin, exists, !exists) and field selectors (=, ==, != on
// metadata.name, metadata.namespace, spec.nodeName, status.phase, and a few more per kind), parsed once
// per request and matched against stored objects.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gangplank::apiserver_double {

class LabelSelector {
 public:
  // Throws ApiError(400) naming the bad part.
  static LabelSelector Parse(const std::string& text);
  // From a metav1.LabelSelector JSON (matchLabels + matchExpressions), as PDBs carry.
  static LabelSelector from_json(const nlohmann::json& selector);
  bool matches(const nlohmann::json& labels) const;
  bool empty() const { return requirements_.empty(); }

 private:
  enum class Op { Equals, NotEquals, In, NotIn, Exists, DoesNotExist };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  std::vector<Requirement> requirements_;
};

class FieldSelector {
 public:
  // Throws ApiError(400) for syntax errors and for fields the kind does not support.
  static FieldSelector Parse(const std::string& text, const std::string& kind);
  bool matches(const nlohmann::json& object) const;
  bool empty() const { return requirements_.empty(); }
  // The value required for metadata.name with '=', if any (single-object watches).
  std::string RequiredName() const;

 private:
  struct Requirement {
    std::string field;
    bool equals;
    std::string value;
  };
  std::vector<Requirement> requirements_;
};

}  // namespace gangplank::apiserver_double
