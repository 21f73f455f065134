// The fast path for decoding ExtenderArgs.NodeNames: a JSON array of strings with nothing to unescape,
// viewed in place. Anything else (escapes, other types, malformed text) makes it give up, and the
// general decoder decodes the text or names the error.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace gangplank::extender {

struct ScannedNames {
  std::vector<std::string_view> names;
  bool plain = true;  // Every name IsPlainJsonString.
};

// The names of the JSON array starting at `text` (whitespace first allowed; the text is followed by a
// NUL, see StrictJsonCursor), or nullopt to leave it to the general decoder.
std::optional<ScannedNames> ScanNodeNames(const char* text);

}  // namespace gangplank::extender
