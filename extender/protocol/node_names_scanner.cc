#include "extender/protocol/node_names_scanner.h"

#include "extender/protocol/strict_json_cursor.h"

namespace gangplank::extender {

std::optional<ScannedNames> ScanNodeNames(const char* text) {
  StrictJsonCursor in(text);
  ScannedNames out;
  const bool ok = in.Take('[') && in.Elements(']', [&] { return in.String(out.names.emplace_back(), out.plain); });
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace gangplank::extender
