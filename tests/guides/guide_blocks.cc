#include "tests/guides/guide_blocks.h"

#include <algorithm>
#include <regex>
#include <sstream>

namespace gangplank::guides {
namespace {

std::string Trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

bool IsShellFence(const std::string& line) { return line == "```sh" || line == "```bash" || line == "```shell"; }

}  // namespace

ParsedGuide ParseGuide(const std::string& markdown) {
  static const std::regex kRun(R"(<!--\s*test:\s*run\s*-->)");
  static const std::regex kSkip(R"(<!--\s*test:\s*skip\s+(.*\S)\s*-->)");
  ParsedGuide parsed;
  std::vector<std::string> lines;
  std::istringstream in(markdown);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string fence = Trim(lines[i]);
    if (fence.rfind("```", 0) != 0) continue;
    // Find the closing fence whatever the block's language, so a fence inside is not taken for an opening.
    size_t end = i + 1;
    while (end < lines.size() && Trim(lines[end]) != "```") ++end;
    if (end == lines.size()) {
      parsed.errors.push_back("line " + std::to_string(i + 1) + ": the block is not closed");
      break;
    }
    if (IsShellFence(fence)) {
      GuideBlock block;
      block.line = static_cast<int>(i + 1);
      const std::string marker = i > 0 ? Trim(lines[i - 1]) : "";
      std::smatch m;
      if (std::regex_match(marker, kRun)) {
        block.run = true;
      } else if (std::regex_match(marker, m, kSkip)) {
        block.why_skip = m[1];
      } else {
        parsed.errors.push_back("line " + std::to_string(i + 1) +
                                ": a shell block without `<!-- test: run -->` or `<!-- test: skip <why> -->` on the line above");
      }
      for (size_t k = i + 1; k < end; ++k) block.code += lines[k] + "\n";
      parsed.blocks.push_back(std::move(block));
    }
    i = end;
  }
  return parsed;
}

std::vector<std::filesystem::path> GuideFiles(const std::filesystem::path& docs) {
  std::vector<std::filesystem::path> out;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(docs, ignored)) {
    if (entry.path().extension() == ".md") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gangplank::guides
