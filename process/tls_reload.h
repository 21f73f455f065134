// Keeps a running HTTPS server on the certificate and key its files hold now. cert-manager or a mounted
// Secret renews them in place; each Check() looks at the files (net::TlsFileWatch) and, once a renewal is
// a usable pair, has the server load it. New connections get the new pair and open ones finish with the
// old, so a rotation needs no restart and refuses no connection. A half-written renewal, or one the server
// cannot load, leaves the current certificate in use. Every outcome but "no change" is logged.
#pragma once

#include <string>

#include "net/http_server.h"
#include "net/tls_file_watch.h"

namespace gangplank::process {

class TlsReload {
 public:
  // `server` serves `files` and outlives this. `listener` names it in the log lines ("webhook"); empty for
  // a binary's only HTTPS listener.
  TlsReload(net::HttpServer& server, net::HttpTlsFiles files, const std::string& listener = {});

  void Check();

 private:
  net::HttpServer& server_;
  net::TlsFileWatch watch_;
  std::string log_prefix_;  // "webhook " or "".
};

}  // namespace gangplank::process
