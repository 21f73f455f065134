#include "tools/scheduler-driver/health_server.h"

namespace gangplank::scheduler_driver {

std::unique_ptr<net::HttpServer> ServeHealth(SchedulerDriver& driver, const std::string& address, std::uint16_t port) {
  net::HttpServerOptions options;
  options.host = address;
  options.port = port;
  options.io_threads = 1;
  auto server = net::MakeHttpServer(options);
  server->Start(net::MakeSyncHandler([&driver](const net::HttpRequest& request) {
    if (request.method != "GET") return net::HttpResponse::text(405, "method not allowed\n");
    if (request.path == "/healthz") return net::HttpResponse::text(200, "ok\n");
    if (request.path == "/readyz") {
      return driver.synced() ? net::HttpResponse::text(200, "ok\n") : net::HttpResponse::text(503, "informers not synced\n");
    }
    if (request.path == "/metrics") {
      net::HttpResponse response = net::HttpResponse::text(200, driver.metrics().Scrape());
      response.SetHeader("Content-Type", "text/plain; version=0.0.4");
      return response;
    }
    return net::HttpResponse::text(404, "not found\n");
  }));
  return server;
}

}  // namespace gangplank::scheduler_driver
