#include "net/asio_exchange.h"

#include "net/asio_connection.h"
#include "net/asio_response_stream.h"
#include "net/asio_server_core.h"

namespace gangplank::net::asio_server {

AsioExchange::~AsioExchange() {
  if (!answered_.exchange(true)) PostResponse(HttpResponse::text(500, "handler did not answer the request\n"));
}

void AsioExchange::Respond(HttpResponse response) {
  if (answered_.exchange(true)) return;
  PostResponse(std::move(response));
}

std::shared_ptr<HttpResponseStream> AsioExchange::StartStream(int status,
                                                               std::vector<std::pair<std::string, std::string>> headers) {
  auto stream = std::make_shared<AsioResponseStream>(core_, core_->options().max_stream_buffer_bytes);
  if (answered_.exchange(true)) {
    stream->Close();
    return stream;
  }
  stream->Attach(connection_);
  const bool registered = core_->RegisterStream(stream);
  core_->Post(connection_->executor(), [connection = connection_, status, headers = std::move(headers), stream]() mutable {
    connection->SendStreamHead(status, std::move(headers), std::move(stream));
  });
  // The server is stopping: the client still gets the head, then the end of the body.
  if (!registered) stream->Close();
  return stream;
}

void AsioExchange::PostResponse(HttpResponse&& response) {
  // Dropped when the server has stopped: nobody is left to write it.
  core_->Post(connection_->executor(), [connection = connection_, response = std::move(response)]() mutable {
    connection->SendResponse(std::move(response));
  });
}

}  // namespace gangplank::net::asio_server
