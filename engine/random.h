// A small deterministic random generator (SplitMix64). The engine uses its own generator instead of
// <random> distributions, whose output differs between standard libraries, so a seed gives the same
// decisions everywhere.
#pragma once

#include <cstdint>

namespace gangplank::engine {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0. The modulo bias is below 2^-40 for the n the engine uses.
  std::uint64_t Below(std::uint64_t n) { return Next() % n; }
  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

}  // namespace gangplank::engine
