// A small append-only JSON writer that produces what Go's encoding/json would: compact, strings escaped
// the Go way (<, > and & as \u003c \u003e \u0026, U+2028/2029 escaped, invalid UTF-8 as \ufffd).
// The caller drives structure (objects, arrays, keys); commas are inserted here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gangplank::extender {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(std::int64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // An already-encoded JSON value, copied verbatim (e.g. a node object echoed from the request).
  JsonWriter& Raw(std::string_view json);
  // The text written so far, for appending a flat value directly after Raw() opened it.
  std::string& Output() { return out_; }

 private:
  void BeforeValue();

  std::string& out_;
  std::vector<bool> first_;  // Per open container: no element written yet.
  bool after_key_ = false;
};

// True when `value` is written between quotes unchanged (no byte needs escaping or UTF-8 checks).
bool IsPlainJsonString(std::string_view value);

// Appends `value` as a quoted JSON string escaped exactly as Go's encoding/json escapes it.
void AppendGoJsonString(std::string& out, std::string_view value);

}  // namespace gangplank::extender
