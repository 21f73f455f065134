#include "tests/helm/support/secret_files.h"

#include <fstream>

namespace gangplank::helm_testing {

void write_secret_files(const json& secret, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const json data = secret.value("data", json::object());
  for (const auto& [key, value] : data.items()) {
    std::ofstream(dir / key, std::ios::binary) << Base64Decode(value.get<std::string>());
  }
}

}  // namespace gangplank::helm_testing
