// What a reader of Kubernetes objects refuses, for tests that check bad input names its field.
#pragma once

#include <functional>
#include <string>

#include "cache/objects/decode_error.h"

namespace gangplank::cache::testing {

// The DecodeError `read` throws ("spec.pools[1].limitGPUs: ..."), or "no error".
inline std::string ErrorOf(const std::function<void()>& read) {
  try {
    read();
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace gangplank::cache::testing
