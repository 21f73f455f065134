#include "net/json_nesting.h"

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gangplank::net {
namespace {

constexpr std::size_t kBlock = 64;

// One bit per byte of a 64-byte block.
struct BlockMasks {
  std::uint64_t quote = 0;
  std::uint64_t backslash = 0;
  std::uint64_t open = 0;   // '[' or '{'
  std::uint64_t close = 0;  // ']' or '}'
};

// '[' (0x5B) and '{' (0x7B) differ only in 0x20, as ']' (0x5D) and '}' (0x7D) do: OR-ing 0x20 in folds
// each pair onto one value, and no other byte lands there.
#if defined(__SSE2__)
BlockMasks Classify(const char* p) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i fold = _mm_set1_epi8(0x20);
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  BlockMasks m;
  for (int i = 0; i < 4; ++i) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    const __m128i folded = _mm_or_si128(v, fold);
    const auto bits = [](__m128i eq) { return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(eq))); };
    const int shift = 16 * i;
    m.quote |= bits(_mm_cmpeq_epi8(v, quote)) << shift;
    m.backslash |= bits(_mm_cmpeq_epi8(v, backslash)) << shift;
    m.open |= bits(_mm_cmpeq_epi8(folded, open)) << shift;
    m.close |= bits(_mm_cmpeq_epi8(folded, close)) << shift;
  }
  return m;
}
#else
BlockMasks Classify(const char* p) {
  BlockMasks m;
  for (std::size_t i = 0; i < kBlock; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    const std::uint64_t bit = std::uint64_t{1} << i;
    if (c == '"') m.quote |= bit;
    if (c == '\\') m.backslash |= bit;
    if ((c | 0x20) == '{') m.open |= bit;
    if ((c | 0x20) == '}') m.close |= bit;
  }
  return m;
}
#endif

// The bytes a backslash escapes (simdjson's branchless escape scanner): in a run of backslashes every
// second one is escaped, and the byte after an odd run is. `carry` says the previous block ended in an
// unfinished escape.
std::uint64_t EscapedBytes(std::uint64_t backslash, std::uint64_t& carry) {
  backslash &= ~carry;
  const std::uint64_t follows_escape = backslash << 1 | carry;
  constexpr std::uint64_t kEvenBits = 0x5555555555555555ULL;
  const std::uint64_t odd_sequence_starts = backslash & ~kEvenBits & ~follows_escape;
  std::uint64_t sequences_starting_on_even_bits = 0;
  carry = __builtin_add_overflow(odd_sequence_starts, backslash, &sequences_starting_on_even_bits) ? 1 : 0;
  const std::uint64_t invert_mask = sequences_starting_on_even_bits << 1;
  return (kEvenBits ^ invert_mask) & follows_escape;
}

// Bit i set when an odd number of bits 0..i are: inside a string, counting its opening quote.
std::uint64_t PrefixXor(std::uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

}  // namespace

bool JsonNestsDeeperThan(std::string_view text, std::size_t max_depth) {
  std::uint64_t escape_carry = 0;
  std::uint64_t in_string_carry = 0;  // all ones while a string runs on from the previous block
  std::size_t depth = 0;
  char tail[kBlock];
  for (std::size_t at = 0; at < text.size(); at += kBlock) {
    const char* block = text.data() + at;
    if (text.size() - at < kBlock) {
      std::memset(tail, 0, sizeof tail);
      std::memcpy(tail, block, text.size() - at);
      block = tail;
    }
    const BlockMasks m = Classify(block);
    const std::uint64_t quotes = m.quote & ~EscapedBytes(m.backslash, escape_carry);
    const std::uint64_t in_string = PrefixXor(quotes) ^ in_string_carry;
    in_string_carry = static_cast<std::uint64_t>(static_cast<std::int64_t>(in_string) >> 63);
    const std::uint64_t opens = m.open & ~in_string;
    const std::uint64_t closes = m.close & ~in_string;
    if ((opens | closes) == 0) continue;
    const auto opened = static_cast<std::size_t>(std::popcount(opens));
    const auto closed = static_cast<std::size_t>(std::popcount(closes));
    // Neither the limit nor zero within reach: the order inside the block does not matter.
    if (depth + opened <= max_depth && depth >= closed) {
      depth = depth + opened - closed;
      continue;
    }
    for (std::uint64_t rest = opens | closes; rest != 0; rest &= rest - 1) {
      if ((opens & rest & (~rest + 1)) != 0) {
        if (++depth > max_depth) return true;
      } else if (depth > 0) {
        --depth;
      }
    }
  }
  return false;
}

}  // namespace gangplank::net
