// The CEL value of a JSON document as cel-go's dynamic conversion sees it: integers are int (uint past
// INT64_MAX), other numbers double, arrays lists, objects maps with string keys.
#pragma once

#include <nlohmann/json.hpp>

#include "cel/value.h"

namespace gangplank::cel {

Value FromJson(const nlohmann::json& value);

}  // namespace gangplank::cel
