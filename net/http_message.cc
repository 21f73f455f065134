// Library-independent parts of net/http_server.h: request/response helpers and HttpResponder forwarding.
#include <stdexcept>

#include "net/http_responder_impl.h"
#include "net/http_server.h"
#include "net/http_text.h"

namespace gangplank::net {

std::optional<std::string> HttpRequest::header(std::string_view name) const {
  auto it = headers.find(AsciiLower(name));
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<std::string, std::string>> HttpRequest::QueryParams() const {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t start = 0;
  while (start <= query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    std::string_view part(query.data() + start, end - start);
    if (!part.empty()) {
      const auto eq = part.find('=');
      if (eq == std::string_view::npos) {
        out.emplace_back(PercentDecode(part, true), "");
      } else {
        out.emplace_back(PercentDecode(part.substr(0, eq), true), PercentDecode(part.substr(eq + 1), true));
      }
    }
    start = end + 1;
  }
  return out;
}

std::optional<std::string> HttpRequest::QueryParam(std::string_view name) const {
  for (auto& [key, value] : QueryParams()) {
    if (key == name) return value;
  }
  return std::nullopt;
}

HttpResponse& HttpResponse::SetHeader(std::string name, std::string value) {
  const std::string wanted = AsciiLower(name);
  for (auto& [n, v] : headers) {
    if (AsciiLower(n) == wanted) {
      v = std::move(value);
      return *this;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
  return *this;
}

namespace {

HttpResponse WithContentType(int status, std::string body, const char* content_type) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers.emplace_back("Content-Type", content_type);
  return r;
}

}  // namespace

HttpResponse HttpResponse::text(int status, std::string body) {
  return WithContentType(status, std::move(body), "text/plain; charset=utf-8");
}

HttpResponse HttpResponse::json(int status, std::string body) {
  return WithContentType(status, std::move(body), "application/json");
}

HttpHandler MakeSyncHandler(HttpSyncHandler handler) {
  return [handler = std::move(handler)](const HttpRequest& request, HttpResponder responder) {
    responder.Respond(handler(request));
  };
}

HttpResponder::HttpResponder(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpResponder::HttpResponder(HttpResponder&&) noexcept = default;
HttpResponder& HttpResponder::operator=(HttpResponder&&) noexcept = default;
HttpResponder::~HttpResponder() = default;
// A moved-from responder counts as answered: its request now belongs to the responder it moved to.
void HttpResponder::Respond(HttpResponse response) {
  if (impl_) impl_->Respond(std::move(response));
}
std::shared_ptr<HttpResponseStream> HttpResponder::StartStream(int status,
                                                                std::vector<std::pair<std::string, std::string>> headers) {
  if (!impl_) throw std::logic_error("HttpResponder::start_stream on a moved-from responder");
  return impl_->StartStream(status, std::move(headers));
}
bool HttpResponder::answered() const { return !impl_ || impl_->answered(); }

}  // namespace gangplank::net
