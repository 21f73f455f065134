// A net::HttpClient that answers from a script (no network), for the kube client's unit tests: each
// request takes the next step, and every request is kept in `seen`.
#pragma once

#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/http_client.h"

namespace gangplank::kube {

class ScriptedHttp : public net::HttpClient {
 public:
  std::deque<std::function<net::HttpClientResponse(const net::HttpClientRequest&)>> script;
  std::vector<net::HttpClientRequest> seen;

  net::HttpClientResponse Send(const net::HttpClientRequest& request) override {
    seen.push_back(request);
    if (script.empty()) throw std::logic_error("unexpected request " + request.method + " " + request.target);
    auto step = script.front();
    script.pop_front();
    return step(request);
  }
  net::HttpClientResponse stream(const net::HttpClientRequest& request, std::chrono::milliseconds,
                                 const std::function<void(std::string_view)>&, net::CancelToken&) override {
    return Send(request);
  }
};

inline auto reply(int status, std::string body = "{}", net::HeaderList headers = {}) {
  return [=](const net::HttpClientRequest&) {
    net::HttpClientResponse r;
    r.status = status;
    r.body = body;
    r.headers = headers;
    return r;
  };
}

}  // namespace gangplank::kube
