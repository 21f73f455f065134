// A started double plus small request helpers over the raw test client.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "apiserver-double/api_server_double.h"
#include "tests/support/raw_http.h"

namespace gangplank::apiserver_double::testing {

using gangplank::testing::connect_loopback;
using gangplank::testing::http_request;
using gangplank::testing::RawResponse;
using gangplank::testing::RawStream;

using nlohmann::json;

struct Reply {
  int status;
  json body;
  std::map<std::string, std::string> headers;
};

class DoubleTest : public ::testing::Test {
 protected:
  virtual DoubleOptions options() { return {}; }
  void SetUp() override {
    server_ = std::make_unique<ApiServerDouble>(options());
    server_->Start();
  }
  void TearDown() override { server_->Stop(); }

  Reply call(const std::string& method, const std::string& target, const json& body = nullptr,
             std::map<std::string, std::string> headers = {}) {
    const std::string text = body.is_null() ? "" : body.dump();
    RawResponse r = http_request(server_->port(), method, target, text, headers);
    json parsed;
    if (!r.body.empty() && (r.body[0] == '{' || r.body[0] == '[')) parsed = json::parse(r.body);
    return {r.status, parsed, r.headers};
  }
  Reply patch(const std::string& target, const json& body, const std::string& content_type) {
    return call("PATCH", target, body, {{"Content-Type", content_type}});
  }

  static json pod(const std::string& name, json labels = json::object(), const std::string& phase = "") {
    json p = {{"apiVersion", "v1"}, {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
              {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
    if (!phase.empty()) p["status"] = {{"phase", phase}};
    return p;
  }

  static json crd(const std::string& scope = "Namespaced") {
    return json::parse(R"({
      "apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"gpupools.gangplank.io"},
      "spec":{"group":"gangplank.io","scope":")" + scope + R"(",
        "names":{"plural":"gpupools","singular":"gpupool","kind":"GpuPool","shortNames":["gp"]},
        "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
          "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
          "additionalPrinterColumns":[{"name":"GPUs","type":"integer","jsonPath":".spec.gpus"},
                                      {"name":"Ready","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].status"}]}]}})");
  }

  std::unique_ptr<ApiServerDouble> server_;
};

}  // namespace gangplank::apiserver_double::testing
