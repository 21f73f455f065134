#include "tests/helm/support/secret_files.h"

#include <fstream>

namespace gangplank::helm_testing {

std::string Base64Decode(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int bits = 0;
  unsigned buffer = 0;
  for (char c : text) {
    const int v = value(c);
    if (v < 0) continue;  // padding, line breaks
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

void write_secret_files(const json& secret, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const json data = secret.value("data", json::object());
  for (const auto& [key, value] : data.items()) {
    std::ofstream(dir / key, std::ios::binary) << Base64Decode(value.get<std::string>());
  }
}

}  // namespace gangplank::helm_testing
