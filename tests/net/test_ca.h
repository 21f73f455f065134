// A throw-away CA made with openssl in a directory, and certificates it signs: a server certificate for
// 127.0.0.1 and client certificates, for the tests of mutual TLS.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace gangplank::net::testing {

inline bool Openssl(const std::string& args) { return std::system(("openssl " + args + " >/dev/null 2>&1").c_str()) == 0; }

// <dir>/<name>.crt and .key: a self-signed CA.
inline bool MakeCa(const std::filesystem::path& dir, const std::string& name) {
  const std::string base = (dir / name).string();
  return Openssl("req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=" + name + " -keyout " + base + ".key -out " +
                 base + ".crt");
}

// <dir>/<name>.crt and .key signed by the CA <dir>/<ca>.crt; `server`: for 127.0.0.1, else a client
// certificate.
inline bool MakeSigned(const std::filesystem::path& dir, const std::string& ca, const std::string& name, bool server) {
  const std::string base = (dir / name).string(), ca_base = (dir / ca).string();
  const std::string ext = (dir / (name + ".ext")).string();
  const std::string usage = server ? "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n" : "extendedKeyUsage=clientAuth\n";
  if (std::system(("printf '" + usage + "' > " + ext).c_str()) != 0) return false;
  return Openssl("req -newkey rsa:2048 -nodes -subj /CN=" + name + " -keyout " + base + ".key -out " + base + ".csr") &&
         Openssl("x509 -req -in " + base + ".csr -CA " + ca_base + ".crt -CAkey " + ca_base + ".key -CAcreateserial -days 1 -extfile " +
                 ext + " -out " + base + ".crt");
}

}  // namespace gangplank::net::testing
