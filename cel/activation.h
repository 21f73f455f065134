// The variables an expression is evaluated against, by name: `device` for a DRA selector, `self` and
// `oldSelf` for a CRD validation rule.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/value.h"

namespace gangplank::cel {

class Activation {
 public:
  Activation() = default;
  Activation(std::string name, Value value) { Bind(std::move(name), std::move(value)); }

  // Binds `name`, replacing an earlier binding of the same name.
  Activation& Bind(std::string name, Value value) {
    for (auto& [bound, v] : variables_) {
      if (bound == name) {
        v = std::move(value);
        return *this;
      }
    }
    variables_.emplace_back(std::move(name), std::move(value));
    return *this;
  }

  // Null when `name` is not bound.
  const Value* Find(std::string_view name) const {
    for (const auto& [bound, v] : variables_) {
      if (bound == name) return &v;
    }
    return nullptr;
  }

 private:
  std::vector<std::pair<std::string, Value>> variables_;
};

}  // namespace gangplank::cel
