// Semantic versions as CEL values (`semver('1.2.3')`, DRA version attributes), parsed and ordered as
// Kubernetes' CEL semver library does with blang/semver: MAJOR.MINOR.PATCH[-pre.release][+build], no
// leading zeros, build metadata ignored by comparison; normalizing parse accepts "v1", "1.02".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gangplank::cel {

class Semver {
 public:
  // Throws EvalError with blang/semver's message when `text` is not a version. With `normalize`, a
  // leading "v" is dropped, leading zeros trimmed and missing minor/patch parts taken as 0 first.
  static Semver Parse(std::string_view text, bool normalize = false);
  static std::optional<Semver> TryParse(std::string_view text, bool normalize = false, std::string* error = nullptr);

  int Compare(const Semver& other) const;  // -1, 0, 1; build metadata does not count
  uint64_t major() const { return major_; }
  uint64_t minor() const { return minor_; }
  uint64_t patch() const { return patch_; }
  std::string ToString() const;

  bool operator==(const Semver& other) const { return Compare(other) == 0; }

 private:
  struct Prerelease {
    bool numeric = false;
    uint64_t number = 0;
    std::string text;
  };

  uint64_t major_ = 0;
  uint64_t minor_ = 0;
  uint64_t patch_ = 0;
  std::vector<Prerelease> prerelease_;
  std::vector<std::string> build_;
};

}  // namespace gangplank::cel
