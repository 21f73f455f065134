#include "extender/protocol/victims_scanner.h"

#include "engine/short_string_equal.h"
#include "extender/protocol/strict_json_cursor.h"

namespace gangplank::extender {
namespace {

// {"UID":"…"}: exactly one key, a non-empty UID (an empty or missing one is the general path's error).
bool MetaPod(StrictJsonCursor& in, NodeVictimsMap& map, bool& plain) {
  std::string_view key, uid;
  if (!in.Take('{') || !in.Key(key) || !KeyIs(key, "UID")) return false;
  if (!in.String(uid, plain) || uid.empty() || !in.Take('}')) return false;
  map.AddUid(uid);
  return true;
}

bool Pods(StrictJsonCursor& in, NodeVictimsMap& map, bool& plain) {
  if (in.TakeNull()) return true;
  if (!in.Take('[')) return false;
  return in.Elements(']', [&] { return MetaPod(in, map, plain); });
}

// MetaVictims exactly as Go writes it: {"Pods":[{"UID":"…"},…],"NumPDBViolations":N}.
bool CanonicalVictims(StrictJsonCursor& in, NodeVictimsMap& map, bool& plain, std::int64_t& pdb) {
  if (!in.TakeLiteral(R"({"Pods":[)")) return false;
  do {
    std::string_view uid;
    if (!in.TakeLiteral(R"({"UID":)") || !in.String(uid, plain) || uid.empty() || !in.TakeLiteral("}")) return false;
    map.AddUid(uid);
  } while (in.TakeLiteral(","));
  return in.TakeLiteral(R"(],"NumPDBViolations":)") && in.SmallNonNegativeInt(pdb) && in.TakeLiteral("}");
}

// A node's MetaVictims (or null), closed into the map under `node`.
bool Victims(StrictJsonCursor& in, std::string_view node, NodeVictimsMap& map, bool& plain) {
  std::int64_t pdb = 0;
  const char* start = in.position();
  bool canonical_plain = plain;
  if (CanonicalVictims(in, map, canonical_plain, pdb)) {
    plain = canonical_plain;
    map.CloseNode(node, pdb);
    return true;
  }
  // Any other spelling (whitespace, case, key order, null) token by token.
  in.Rewind(start);
  map.DiscardOpen();
  pdb = 0;
  if (!in.TakeNull()) {
    bool seen_pods = false, seen_pdb = false;  // A repeated key is the general path's to resolve.
    if (!in.Take('{')) return false;
    const bool ok = in.Elements('}', [&] {
      std::string_view key;
      if (!in.Key(key)) return false;
      if (KeyIs(key, "Pods") && !seen_pods) {
        seen_pods = true;
        return Pods(in, map, plain);
      }
      if (KeyIs(key, "NumPDBViolations") && !seen_pdb) {
        seen_pdb = true;
        return in.TakeNull() || in.SmallNonNegativeInt(pdb);
      }
      return false;
    });
    if (!ok) return false;
  }
  map.CloseNode(node, pdb);
  return true;
}

}  // namespace

std::optional<NodeVictimsMap> ScanNodeVictims(const char* text) {
  StrictJsonCursor in(text);
  NodeVictimsMap map;
  bool plain = true;
  std::string_view previous;
  bool first = true;
  if (!in.Take('{')) return std::nullopt;
  const bool ok = in.Elements('}', [&] {
    std::string_view node;
    if (!in.String(node, plain) || !in.Take(':')) return false;  // Not Key(): node names count for `plain`.
    // Unsorted or repeated: the general path orders them.
    if (!first && !engine::ShortStringLess(previous, node)) return false;
    first = false;
    previous = node;
    return Victims(in, node, map, plain);
  });
  if (!ok) return std::nullopt;
  map.set_known_plain(plain);
  return map;
}

}  // namespace gangplank::extender
