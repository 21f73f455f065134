#include "process/tls_reload.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "logging/json_log.h"

namespace gangplank::process {

TlsReload::TlsReload(net::HttpServer& server, net::HttpTlsFiles files, const std::string& listener)
    : server_(server), watch_(std::move(files)), log_prefix_(listener.empty() ? "" : listener + " ") {}

void TlsReload::Check() {
  const net::TlsFileWatch::Result renewal = watch_.Check();
  if (renewal.change == net::TlsFileWatch::Change::kNotReady) {
    spdlog::warn(logging::JsonFields("new " + log_prefix_ + "TLS files not usable yet; keeping the current certificate",
                                     "error", renewal.problem));
  } else if (renewal.change == net::TlsFileWatch::Change::kRenewed) {
    if (const std::string error = server_.ReloadTls(); !error.empty()) {
      spdlog::error(logging::JsonFields("cannot load the new " + log_prefix_ + "certificate; keeping the current one",
                                        "error", error));
    } else {
      spdlog::info(logging::JsonFields(log_prefix_ + "TLS certificate or key changed; new connections use it"));
    }
  }
}

}  // namespace gangplank::process
