// A hash for short strings (node names, pod UIDs, queue names): eight bytes per multiply instead of
// std::hash's byte-oriented MurmurHash, which at 4-40 bytes spends more on setup and tail handling
// than on mixing. The filter and preempt paths hash every candidate name and victim UID of a call.
// Quality: each word goes through a 128-bit multiply fold, the result through a final avalanche, so
// the low bits the open-addressing tables index by depend on every input byte.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace gangplank::engine {

namespace short_string_hash_detail {

__extension__ typedef unsigned __int128 Uint128;  // GCC and Clang on 64-bit targets.

inline std::uint64_t Fold(std::uint64_t a, std::uint64_t b) {
  const Uint128 product = static_cast<Uint128>(a) * b;
  return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
}

}  // namespace short_string_hash_detail

inline std::uint64_t ShortStringHash(std::string_view s) {
  using short_string_hash_detail::Fold;
  constexpr std::uint64_t kSeed = 0x9e3779b97f4a7c15ULL, kMul = 0xbf58476d1ce4e5b9ULL;
  std::uint64_t h = kSeed ^ (s.size() * kMul);
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = Fold(h ^ w, kMul);
  }
  if (n > 0) {  // The tail, zero-padded; the length already went into the seed.
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = Fold(h ^ w, kMul);
  }
  return Fold(h, kSeed);
}

}  // namespace gangplank::engine
