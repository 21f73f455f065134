// The fast path for decoding NodeNameToMetaVictims: the map exactly as kube-scheduler writes it
// ({"node":{"Pods":[{"UID":"…"},…],"NumPDBViolations":N},…}, keys sorted, any whitespace, keys in any
// case, null where Go accepts it), scanned by hand with names and UIDs viewed in place. Anything else
// (escapes, unknown or repeated keys, unsorted nodes, other types or numbers, malformed text) makes it
// give up, and the general decoder decodes the text or names the error.
#pragma once

#include <optional>

#include "extender/protocol/node_victims_map.h"

namespace gangplank::extender {

// The map whose JSON object starts at `text` (whitespace first allowed; the text is followed by a NUL,
// see StrictJsonCursor), or nullopt to leave it to the general decoder. The map is marked known_plain
// when every node name and UID is.
std::optional<NodeVictimsMap> ScanNodeVictims(const char* text);

}  // namespace gangplank::extender
