#include "cel/semver.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "cel/value.h"

namespace gangplank::cel {
namespace {

constexpr std::string_view kNumbers = "0123456789";
constexpr std::string_view kAlphanumerics = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789";

bool ContainsOnly(std::string_view s, std::string_view set) { return s.find_first_not_of(set) == std::string_view::npos; }
bool HasLeadingZeroes(std::string_view s) { return s.size() > 1 && s[0] == '0'; }

std::vector<std::string> Split(std::string_view s, char sep, std::size_t max_parts = std::string_view::npos) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = parts.size() + 1 == max_parts ? std::string_view::npos : s.find(sep, start);
    parts.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

// strconv.ParseUint's errors for what ContainsOnly let through (empty, or past 2^64).
std::optional<uint64_t> ParseNumber(const std::string& s, std::string& error) {
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
  if (s.empty()) {
    error = "strconv.ParseUint: parsing \"\": invalid syntax";
    return std::nullopt;
  }
  if (errno == ERANGE) {
    error = "strconv.ParseUint: parsing \"" + s + "\": value out of range";
    return std::nullopt;
  }
  return static_cast<uint64_t>(v);
}

// Kubernetes' normalizeAndParse: drop a leading "v", trim leading zeros, fill missing parts with 0.
std::optional<std::string> Normalize(std::string_view text, std::string& error) {
  if (text.starts_with('v')) text.remove_prefix(1);
  std::vector<std::string> parts = Split(text, '.', 3);
  for (auto& p : parts) {
    if (p.size() > 1) {
      const std::size_t first = p.find_first_not_of('0');
      p = first == std::string::npos ? "" : p.substr(first);
      if (p.empty() || kNumbers.find(p[0]) == std::string_view::npos) p = "0" + p;
    }
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      error = "short version cannot contain PreRelease/Build meta data";
      return std::nullopt;
    }
    while (parts.size() < 3) parts.emplace_back("0");
  }
  return parts[0] + "." + parts[1] + "." + parts[2];
}

std::optional<Semver> Fail(const std::string& message, std::string* error) {
  if (error != nullptr) *error = message;
  return std::nullopt;
}

}  // namespace

Semver Semver::Parse(std::string_view text, bool normalize) {
  std::string error;
  std::optional<Semver> v = TryParse(text, normalize, &error);
  if (!v) throw EvalError(error);
  return *v;
}

std::optional<Semver> Semver::TryParse(std::string_view text, bool normalize, std::string* error) {
  std::string message;
  std::string source(text);
  if (normalize) {
    std::optional<std::string> normalized = Normalize(text, message);
    if (!normalized) return Fail(message, error);
    source = *normalized;
  }
  if (source.empty()) return Fail("Version string empty", error);
  const std::vector<std::string> parts = Split(source, '.', 3);
  if (parts.size() != 3) return Fail("No Major.Minor.Patch elements found", error);
  Semver v;
  static const char* const kNames[] = {"major", "minor"};
  uint64_t* const fields[] = {&v.major_, &v.minor_};
  for (int i = 0; i < 2; ++i) {
    const std::string quoted = "\"" + parts[i] + "\"";
    if (!ContainsOnly(parts[i], kNumbers)) {
      return Fail(std::string("Invalid character(s) found in ") + kNames[i] + " number " + quoted, error);
    }
    if (HasLeadingZeroes(parts[i])) {
      std::string name = kNames[i];
      name[0] = static_cast<char>(name[0] - 'a' + 'A');
      return Fail(name + " number must not contain leading zeroes " + quoted, error);
    }
    const std::optional<uint64_t> n = ParseNumber(parts[i], message);
    if (!n) return Fail(message, error);
    *fields[i] = *n;
  }
  std::string patch = parts[2];
  std::vector<std::string> build, prerelease;
  if (const std::size_t plus = patch.find('+'); plus != std::string::npos) {
    build = Split(std::string_view(patch).substr(plus + 1), '.');
    patch.resize(plus);
  }
  if (const std::size_t dash = patch.find('-'); dash != std::string::npos) {
    prerelease = Split(std::string_view(patch).substr(dash + 1), '.');
    patch.resize(dash);
  }
  if (!ContainsOnly(patch, kNumbers)) return Fail("Invalid character(s) found in patch number \"" + patch + "\"", error);
  if (HasLeadingZeroes(patch)) return Fail("Patch number must not contain leading zeroes \"" + patch + "\"", error);
  const std::optional<uint64_t> p = ParseNumber(patch, message);
  if (!p) return Fail(message, error);
  v.patch_ = *p;
  for (const std::string& pr : prerelease) {
    if (pr.empty()) return Fail("Prerelease is empty", error);
    Prerelease part;
    if (ContainsOnly(pr, kNumbers)) {
      if (HasLeadingZeroes(pr)) return Fail("Numeric PreRelease version must not contain leading zeroes \"" + pr + "\"", error);
      const std::optional<uint64_t> n = ParseNumber(pr, message);
      if (!n) return Fail(message, error);
      part.numeric = true;
      part.number = *n;
    } else if (ContainsOnly(pr, kAlphanumerics)) {
      part.text = pr;
    } else {
      return Fail("Invalid character(s) found in prerelease \"" + pr + "\"", error);
    }
    v.prerelease_.push_back(std::move(part));
  }
  for (const std::string& b : build) {
    if (b.empty()) return Fail("Build meta data is empty", error);
    if (!ContainsOnly(b, kAlphanumerics)) return Fail("Invalid character(s) found in build meta data \"" + b + "\"", error);
  }
  v.build_ = std::move(build);
  return v;
}

int Semver::Compare(const Semver& o) const {
  auto three_way = [](auto a, auto b) { return a < b ? -1 : a > b; };
  if (major_ != o.major_) return three_way(major_, o.major_);
  if (minor_ != o.minor_) return three_way(minor_, o.minor_);
  if (patch_ != o.patch_) return three_way(patch_, o.patch_);
  // A version without prerelease ranks above one with; otherwise part by part, numbers below text.
  if (prerelease_.empty() != o.prerelease_.empty()) return prerelease_.empty() ? 1 : -1;
  for (std::size_t i = 0; i < prerelease_.size() && i < o.prerelease_.size(); ++i) {
    const Prerelease &a = prerelease_[i], &b = o.prerelease_[i];
    if (a.numeric != b.numeric) return a.numeric ? -1 : 1;
    const int c = a.numeric ? three_way(a.number, b.number) : three_way(a.text, b.text);
    if (c != 0) return c;
  }
  return three_way(prerelease_.size(), o.prerelease_.size());
}

std::string Semver::ToString() const {
  std::string out = std::to_string(major_) + "." + std::to_string(minor_) + "." + std::to_string(patch_);
  for (std::size_t i = 0; i < prerelease_.size(); ++i) {
    out += (i == 0 ? "-" : ".") + (prerelease_[i].numeric ? std::to_string(prerelease_[i].number) : prerelease_[i].text);
  }
  for (std::size_t i = 0; i < build_.size(); ++i) out += (i == 0 ? "+" : ".") + build_[i];
  return out;
}

}  // namespace gangplank::cel
