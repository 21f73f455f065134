// Everything kube-apiserver does with a CRD version's schema when custom resources are written and
// read: decoding (pruning, null removal, defaulting), validation (OpenAPI schema, list types, CEL
// rules) and defaulting of what comes out of storage. Immutable once compiled; shared by the catalog.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver-double/schema/field_error.h"
#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::schema {

class CustomResourceSchema {
 public:
  // Checks that `open_api_v3_schema` is structural, parses it and compiles its rules. Failures are appended to `errors`
  // (with `path` naming the schema in the CRD); the result is then unusable and the CRD invalid.
  static std::shared_ptr<const CustomResourceSchema> Compile(const nlohmann::json& open_api_v3_schema,
                                                             const std::string& path, FieldErrors& errors);

  // Request decoding: drops unknown fields (returned, sorted, for fieldValidation), stores integral
  // numbers as integers (as a Go round trip does), removes non-nullable nulls, applies defaults.
  std::vector<std::string> Decode(nlohmann::json& object) const;
  // What a read from storage applies (defaults added to the schema after the object was written).
  void DefaultStored(nlohmann::json& object) const;

  struct Outcome {
    FieldErrors errors;
    std::vector<std::string> warnings;
  };
  // Validation of a create (old == null) or update, in kube-apiserver's order: metadata.name, schema,
  // list types, then the CEL rules unless an earlier error blocks them (which, when the schema has
  // rules, is itself reported as a fieldless cause).
  Outcome Validate(const nlohmann::json& object, const nlohmann::json* old) const;

  const Schema& root() const { return root_; }

 private:
  explicit CustomResourceSchema(Schema root);
  Schema root_;
  bool has_rules_ = false;  // upstream builds no CEL validator (and adds no "not checked" note) without rules
};

}  // namespace gangplank::apiserver_double::schema
