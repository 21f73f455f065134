// A certificate/key pair served from files that are renewed in place (cert-manager, a mounted Secret):
// a renewal is noticed by the files' modification times and taken only once both files form a usable
// pair, so a half-written renewal never takes a listener down.
#pragma once

#include <string>

#include "net/http_server.h"

namespace gangplank::net {

// Empty when the pair is usable for serving HTTPS (both parse, the key matches the certificate), else
// what is wrong.
std::string CheckTlsPair(const std::string& cert_file, const std::string& key_file);

// Empty when `ca_file` holds at least one PEM certificate (a usable client CA bundle), else what is wrong.
std::string CheckClientCa(const std::string& ca_file);

// A renewal of every file in `files` (the pair, and the client CA bundle when set): empty when all are
// usable, else what is wrong.
std::string CheckTlsFiles(const HttpTlsFiles& files);

class TlsFileWatch {
 public:
  enum class Change { kNone, kNotReady, kRenewed };
  struct Result {
    Change change = Change::kNone;
    std::string problem;  // kNotReady: why the changed files are not usable yet.
  };

  explicit TlsFileWatch(HttpTlsFiles files);
  // kRenewed once per change, when the new pair is usable (the caller reloads it then); kNotReady while
  // the changed files are not a usable pair yet (look again later).
  Result Check();

 private:
  std::string Stamp() const;

  HttpTlsFiles files_;
  std::string stamp_;
};

}  // namespace gangplank::net
