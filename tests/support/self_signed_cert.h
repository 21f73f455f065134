// A self-signed certificate for 127.0.0.1 made with openssl (<dir>/<name>.crt and .key), for the tests of
// TLS servers and their certificate reload.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace gangplank::testing {

inline bool MakeSelfSignedCert(const std::filesystem::path& dir, const std::string& name) {
  const std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
                          "-addext subjectAltName=IP:127.0.0.1 -keyout " + (dir / (name + ".key")).string() +
                          " -out " + (dir / (name + ".crt")).string() + " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

}  // namespace gangplank::testing
