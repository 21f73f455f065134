// Small text helpers shared by the HTTP message types and the server: HTTP names are case-insensitive
// and URLs carry percent-encoded bytes.
#pragma once

#include <string>
#include <string_view>

namespace gangplank::net {

// ASCII lower-casing (header names); other bytes are left alone.
std::string AsciiLower(std::string_view text);

// Decodes '%XX' escapes; malformed escapes are kept as written. With `plus_as_space`, '+' becomes ' '
// (query strings); paths keep '+'.
std::string PercentDecode(std::string_view text, bool plus_as_space);

}  // namespace gangplank::net
