// Parses seed lists such as "42..51", "1,5,9" or "1..3,10".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gangplank::simulator::frag {

// Throws std::invalid_argument naming the bad part (empty list, non-number, reversed range, > 10000 seeds).
std::vector<std::uint64_t> ParseSeedList(const std::string& text);

}  // namespace gangplank::simulator::frag
