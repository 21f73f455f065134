#include "cel/string_functions.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace gangplank::cel {
namespace {

// Longest subject a regular expression is run on: libstdc++'s matcher recurses once per character.
constexpr std::size_t kMaxRegexSubjectBytes = 8 * 1024;

[[noreturn]] void NoOverload() { throw EvalError("no such overload"); }

const std::string& StrArg(const std::vector<Value>& args, std::size_t i) {
  if (i >= args.size() || !args[i].is<std::string>()) NoOverload();
  return args[i].str();
}

int64_t IntArg(const std::vector<Value>& args, std::size_t i) {
  if (i >= args.size() || !args[i].is<int64_t>()) NoOverload();
  return args[i].as<int64_t>();
}

void ExpectArgs(const std::vector<Value>& args, std::size_t min, std::size_t max) {
  if (args.size() < min || args.size() > max) NoOverload();
}

// Byte offset of every code point of `s`, plus s.size() at the end.
std::vector<std::size_t> RuneOffsets(const std::string& s) {
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) offsets.push_back(i);
  }
  offsets.push_back(s.size());
  return offsets;
}

std::string AsciiCase(std::string s, bool upper) {
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    c = static_cast<char>(upper ? std::toupper(u) : std::tolower(u));
  }
  return s;
}

[[noreturn]] void OutOfRange(int64_t index) { throw EvalError("index out of range: " + std::to_string(index)); }

Value CharAt(const std::string& s, int64_t index) {
  const std::vector<std::size_t> runes = RuneOffsets(s);
  const auto count = static_cast<int64_t>(runes.size() - 1);
  if (index < 0 || index > count) OutOfRange(index);
  if (index == count) return std::string();
  const auto i = static_cast<std::size_t>(index);
  return s.substr(runes[i], runes[i + 1] - runes[i]);
}

// Code point index of the first (or last) occurrence of `sub` at or after (at or before) `offset` when
// `has_offset`, else from the start (the end).
Value IndexOf(const std::string& s, const std::string& sub, int64_t offset, bool has_offset, bool last) {
  const std::vector<std::size_t> runes = RuneOffsets(s);
  const auto count = static_cast<int64_t>(runes.size() - 1);
  if (sub.empty()) return has_offset ? offset : last ? count : 0;
  if (last && !has_offset && count == 0) return int64_t{-1};
  const int64_t from = has_offset ? offset : last ? count - 1 : 0;
  if (from < 0) OutOfRange(from);
  if (from >= count) return int64_t{-1};
  auto rune_at = [&](std::size_t byte) {
    return static_cast<int64_t>(std::lower_bound(runes.begin(), runes.end(), byte) - runes.begin());
  };
  if (!last) {
    const std::size_t at = s.find(sub, runes[static_cast<std::size_t>(from)]);
    return at == std::string::npos ? int64_t{-1} : rune_at(at);
  }
  const std::size_t at = s.rfind(sub, runes[static_cast<std::size_t>(from)]);
  return at == std::string::npos ? int64_t{-1} : rune_at(at);
}

// Go's strings.Replace: at most `n` replacements (all when n < 0); an empty `from` matches before every
// code point and at the end.
std::string Replace(const std::string& s, const std::string& from, const std::string& to, int64_t n) {
  std::string out;
  int64_t done = 0;
  if (from.empty()) {
    const std::vector<std::size_t> runes = RuneOffsets(s);
    for (std::size_t i = 0; i < runes.size(); ++i) {
      if (n < 0 || done < n) {
        out += to;
        ++done;
      }
      if (i + 1 < runes.size()) out += s.substr(runes[i], runes[i + 1] - runes[i]);
    }
    return out;
  }
  std::size_t start = 0;
  for (std::size_t at; (n < 0 || done < n) && (at = s.find(from, start)) != std::string::npos; ++done) {
    out += s.substr(start, at - start) + to;
    start = at + from.size();
  }
  return out + s.substr(start);
}

// Go's strings.SplitN: at most `n` parts (all when n < 0, none when 0); an empty separator splits
// between code points.
List Split(const std::string& s, const std::string& sep, int64_t n) {
  List parts;
  if (n == 0) return parts;
  if (sep.empty()) {
    const std::vector<std::size_t> runes = RuneOffsets(s);
    for (std::size_t i = 0; i + 1 < runes.size(); ++i) {
      if (n > 0 && static_cast<int64_t>(parts.size()) == n - 1) {
        parts.emplace_back(s.substr(runes[i]));
        return parts;
      }
      parts.emplace_back(s.substr(runes[i], runes[i + 1] - runes[i]));
    }
    return parts;
  }
  std::size_t start = 0;
  while (n < 0 || static_cast<int64_t>(parts.size()) < n - 1) {
    const std::size_t at = s.find(sep, start);
    if (at == std::string::npos) break;
    parts.emplace_back(s.substr(start, at - start));
    start = at + sep.size();
  }
  parts.emplace_back(s.substr(start));
  return parts;
}

Value Substring(const std::string& s, int64_t start, std::optional<int64_t> end) {
  const std::vector<std::size_t> runes = RuneOffsets(s);
  const auto count = static_cast<int64_t>(runes.size() - 1);
  const int64_t stop = end.value_or(count);
  if (end && start > stop) {
    throw EvalError("invalid substring range. start: " + std::to_string(start) + ", end: " + std::to_string(stop));
  }
  if (start < 0 || start > count) OutOfRange(start);
  if (stop < 0 || stop > count) OutOfRange(stop);
  const std::size_t from = runes[static_cast<std::size_t>(start)];
  return s.substr(from, runes[static_cast<std::size_t>(stop)] - from);
}

std::string Trim(const std::string& s) {
  static const char* const kSpace = " \t\n\r\f\v";
  const auto b = s.find_first_not_of(kSpace);
  return b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

}  // namespace

std::optional<std::regex> CompilePattern(const std::string& pattern, std::string* error) {
  const bool icase = pattern.starts_with("(?i)");
  try {
    auto flags = std::regex::ECMAScript;
    if (icase) flags |= std::regex::icase;
    return std::regex(icase ? pattern.substr(4) : pattern, flags);
  } catch (const std::regex_error&) {
    if (error != nullptr) *error = "invalid regular expression: " + pattern;
    return std::nullopt;
  }
}

bool Matches(const std::string& text, const std::regex& compiled) {
  if (text.size() > kMaxRegexSubjectBytes) {
    throw EvalError("matches: string of " + std::to_string(text.size()) + " bytes is longer than the limit of " +
                    std::to_string(kMaxRegexSubjectBytes));
  }
  return std::regex_search(text, compiled);
}

bool Matches(const std::string& text, const std::string& pattern) {
  std::string error;
  const std::optional<std::regex> compiled = CompilePattern(pattern, &error);
  if (!compiled) throw EvalError(error);
  return Matches(text, *compiled);
}

bool IsStringMethod(const std::string& name) {
  static const std::set<std::string> names = {"startsWith", "endsWith", "contains", "matches", "charAt",
                                              "indexOf", "lastIndexOf", "lowerAscii", "upperAscii", "replace",
                                              "split", "substring", "trim"};
  return names.count(name) > 0;
}

Value StringMethod(const std::string& name, const std::string& s, const std::vector<Value>& args) {
  if (name == "startsWith" && args.size() == 1) return s.starts_with(StrArg(args, 0));
  if (name == "endsWith" && args.size() == 1) return s.ends_with(StrArg(args, 0));
  if (name == "contains" && args.size() == 1) return s.find(StrArg(args, 0)) != std::string::npos;
  if (name == "matches" && args.size() == 1) return Matches(s, StrArg(args, 0));
  if (name == "lowerAscii" && args.empty()) return AsciiCase(s, false);
  if (name == "upperAscii" && args.empty()) return AsciiCase(s, true);
  if (name == "trim" && args.empty()) return Trim(s);
  if (name == "charAt" && args.size() == 1) return CharAt(s, IntArg(args, 0));
  if (name == "indexOf" || name == "lastIndexOf") {
    ExpectArgs(args, 1, 2);
    const bool has_offset = args.size() == 2;
    return IndexOf(s, StrArg(args, 0), has_offset ? IntArg(args, 1) : 0, has_offset, name == "lastIndexOf");
  }
  if (name == "replace") {
    ExpectArgs(args, 2, 3);
    return Replace(s, StrArg(args, 0), StrArg(args, 1), args.size() == 3 ? IntArg(args, 2) : -1);
  }
  if (name == "split") {
    ExpectArgs(args, 1, 2);
    return Split(s, StrArg(args, 0), args.size() == 2 ? IntArg(args, 1) : -1);
  }
  if (name == "substring") {
    ExpectArgs(args, 1, 2);
    return Substring(s, IntArg(args, 0), args.size() == 2 ? std::optional(IntArg(args, 1)) : std::nullopt);
  }
  NoOverload();
}

}  // namespace gangplank::cel
