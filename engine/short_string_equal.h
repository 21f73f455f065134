// Equality of short strings (node names, GPU models) without a library call: the filter and
// prioritize paths compare thousands of 4-40 byte strings per request, and for strings that short
// memcmp's call and dispatch cost more than the comparison itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gangplank::engine {

inline bool ShortStringEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  std::size_t n = a.size();
  // Eight bytes at a time (memcpy of a constant size compiles to one load), then the tail.
  for (; n >= 8; n -= 8, x += 8, y += 8) {
    std::uint64_t u, v;
    std::memcpy(&u, x, 8);
    std::memcpy(&v, y, 8);
    if (u != v) return false;
  }
  for (; n > 0; --n, ++x, ++y) {
    if (*x != *y) return false;
  }
  return true;
}

}  // namespace gangplank::engine
