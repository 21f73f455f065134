// A GPUPool named h100 read from the JSON text of its spec, for the tests of one part of the spec.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cache/crd/pool_config.h"
#include "tests/cache/support/decode_errors.h"

namespace gangplank::cache::testing {

inline PoolConfig PoolOfSpec(const std::string& spec) {
  return PoolConfigFromObject(nlohmann::json::parse(R"({"metadata":{"name":"h100"},"spec":)" + spec + "}"));
}

// What reading that pool refuses, or "no error".
inline std::string PoolSpecError(const std::string& spec) {
  return ErrorOf([&] { PoolOfSpec(spec); });
}

}  // namespace gangplank::cache::testing
