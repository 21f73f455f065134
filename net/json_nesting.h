// How deep a request body's JSON nests, found before anything parses it (issue 31). A DOM parser spends
// memory, and recursive code stack, on every level, so a server refuses a body nested deeper than any
// real request (HttpServerOptions::max_json_depth) without building anything. One pass over the bytes,
// 64 at a time (SSE2 where there is SSE2), as cheap as a memcpy of the body: brackets inside strings do
// not count, escaped quotes do not end a string.
#pragma once

#include <cstddef>
#include <string_view>

namespace gangplank::net {

// True when a '[' or '{' outside a string opens a level deeper than `max_depth` (the outermost value's
// bracket opens level 1, so `[]` is 1 deep and `1` is 0). Not a validator: malformed JSON (an unclosed
// string, a stray ']') is the parser's to refuse; a closing bracket never takes the count below 0.
bool JsonNestsDeeperThan(std::string_view text, std::size_t max_depth);

}  // namespace gangplank::net
