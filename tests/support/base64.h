// RFC 4648 base64 decoding for tests (admission responses carry their JSON patch in base64).
#pragma once

#include <string>

namespace gangplank::testing {

inline std::string Base64Decode(const std::string& s) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int value = 0, bits = -8;
  for (char c : s) {
    if (c == '=') break;
    const auto at = kAlphabet.find(c);
    if (at == std::string::npos) continue;
    value = (value << 6) + static_cast<int>(at);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((value >> bits) & 0xff));
      bits -= 8;
    }
  }
  return out;
}

}  // namespace gangplank::testing
