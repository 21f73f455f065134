// Just enough HTTP/1.1 framing for the fault proxy to relay bytes it does not otherwise read: the request
// head (method, target, headers) and where a chunked body ends, so a watch stream can be ended at an
// event boundary or cut inside an event.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gangplank::testing::fault_proxy {

struct RequestHead {
  std::string method;
  std::string path;   // the target before '?'
  std::string query;  // after '?', raw
  std::vector<std::pair<std::string, std::string>> headers;

  // The first header named `name` (case-insensitive), if any.
  std::optional<std::string> Header(std::string_view name) const;
  // A watch request: ?watch=1 or ?watch=true.
  bool IsWatch() const;
  // The head as sent upstream: the same request line and headers, but Connection: close, so every
  // request has a connection of its own and the proxy needs no keep-alive bookkeeping.
  std::string ForUpstream() const;
};

// Parses "METHOD target HTTP/1.1\r\nName: value\r\n...\r\n\r\n" (`text` holds the head only);
// nullopt when it is not an HTTP/1.x request head.
std::optional<RequestHead> ParseRequestHead(std::string_view text);

// Follows a chunked body byte by byte: whether the bytes seen so far end between two watch events (between
// two chunks, the data so far ending in the newline after an event; kube-apiserver may split a large event
// over chunks), and whether the last chunk has been seen.
class ChunkTracker {
 public:
  void Feed(std::string_view bytes);
  bool AtEventBoundary() const { return state_ == State::kSize && line_.empty() && last_data_ == '\n'; }
  bool Finished() const { return state_ == State::kDone; }

 private:
  enum class State { kSize, kData, kDataEnd, kTrailer, kDone };
  State state_ = State::kSize;
  std::string line_;
  std::size_t remaining_ = 0;
  char last_data_ = '\n';
};

// The bytes of one watch event in the chunked framing kube-apiserver uses (one chunk per event).
std::string ChunkOf(std::string_view data);
// The chunked body's end.
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

}  // namespace gangplank::testing::fault_proxy
