// Equality of short strings (node names, GPU models) without a library call: the filter and
// prioritize paths compare thousands of 4-40 byte strings per request, and for strings that short
// memcmp's call and dispatch cost more than the comparison itself.
#pragma once

#include <bit>
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

// a < b in byte order (as std::string_view compares), eight bytes per step: checking that hundreds of
// node names arrive sorted costs a memcmp call per name otherwise.
inline bool ShortStringLess(std::string_view a, std::string_view b) {
  static_assert(std::endian::native == std::endian::little, "words are byte-swapped to compare in byte order");
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t u, v;
    std::memcpy(&u, a.data() + i, 8);
    std::memcpy(&v, b.data() + i, 8);
    if (u != v) return __builtin_bswap64(u) < __builtin_bswap64(v);  // Big-endian: byte order.
  }
  for (; i < n; ++i) {
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  }
  return a.size() < b.size();
}

}  // namespace gangplank::engine
