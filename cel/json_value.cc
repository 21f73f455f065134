#include "cel/json_value.h"

#include <cstdint>

namespace gangplank::cel {

using nlohmann::json;

Value FromJson(const json& value) {
  switch (value.type()) {
    case json::value_t::boolean: return value.get<bool>();
    case json::value_t::string: return value.get<std::string>();
    case json::value_t::number_integer: return value.get<int64_t>();
    case json::value_t::number_unsigned:
      if (value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return value.get<uint64_t>();
      return static_cast<int64_t>(value.get<uint64_t>());
    case json::value_t::number_float: return value.get<double>();
    case json::value_t::array: {
      List l;
      for (const auto& item : value) l.push_back(FromJson(item));
      return l;
    }
    case json::value_t::object: {
      Map m;
      for (auto it = value.begin(); it != value.end(); ++it) m.entries.emplace_back(it.key(), FromJson(it.value()));
      return m;
    }
    default: return Value();
  }
}

}  // namespace gangplank::cel
