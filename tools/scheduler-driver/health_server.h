// The driver's small HTTP server: GET /healthz (200 while the process runs), /readyz (200 once the
// informers have synced, 503 before) and /metrics (Prometheus text), on net/http_server.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "net/http_server.h"
#include "tools/scheduler-driver/scheduler_driver.h"

namespace gangplank::scheduler_driver {

// Starts serving `driver`'s health and metrics on address:port (port 0: an ephemeral port). Throws
// std::runtime_error when it cannot listen.
std::unique_ptr<net::HttpServer> ServeHealth(SchedulerDriver& driver, const std::string& address, std::uint16_t port);

}  // namespace gangplank::scheduler_driver
