// The shell blocks of a guide in docs/: each ```sh fence must follow a marker comment on the line just
// above it, `<!-- test: run -->` (tests/guides runs it) or `<!-- test: skip <why> -->` (shown, not run,
// the reason said in the guide's source). Other fences (yaml, text, ...) are not shell and not run.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gangplank::guides {

struct GuideBlock {
  int line = 0;          // 1-based line of the opening fence.
  bool run = false;      // Marked `<!-- test: run -->`.
  std::string why_skip;  // The reason of a `<!-- test: skip ... -->`.
  std::string code;      // The block's text, without the fences.
};

struct ParsedGuide {
  std::vector<GuideBlock> blocks;
  std::vector<std::string> errors;  // "line N: ..." for an unmarked or unterminated shell block.
};

ParsedGuide ParseGuide(const std::string& markdown);
// docs/*.md, sorted by name.
std::vector<std::filesystem::path> GuideFiles(const std::filesystem::path& docs);

}  // namespace gangplank::guides
