#include "simulator/frag/seed_list.h"

#include <charconv>
#include <stdexcept>

namespace gangplank::simulator::frag {
namespace {

std::uint64_t ParseSeed(std::string_view s, const std::string& whole) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    throw std::invalid_argument("bad seed '" + std::string(s) + "' in seed list '" + whole + "'");
  }
  return v;
}

}  // namespace

std::vector<std::uint64_t> ParseSeedList(const std::string& text) {
  std::vector<std::uint64_t> seeds;
  std::string_view rest = text;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (part.empty()) continue;
    if (const size_t dots = part.find(".."); dots != std::string_view::npos) {
      const std::uint64_t a = ParseSeed(part.substr(0, dots), text), b = ParseSeed(part.substr(dots + 2), text);
      if (b < a) throw std::invalid_argument("reversed seed range '" + std::string(part) + "'");
      if (b - a >= 10000) throw std::invalid_argument("seed range '" + std::string(part) + "' is too long");
      for (std::uint64_t s = a; s <= b; ++s) seeds.push_back(s);
    } else {
      seeds.push_back(ParseSeed(part, text));
    }
    if (seeds.size() > 10000) throw std::invalid_argument("more than 10000 seeds");
  }
  if (seeds.empty()) throw std::invalid_argument("empty seed list");
  return seeds;
}

}  // namespace gangplank::simulator::frag
