// What every test cluster on the API-server double starts from: the "ml" namespace the fixtures' pods
// live in, and gangplank's GPUPool and Queue CRDs from crds/ (the tests define GANGPLANK_SOURCE_DIR).
// Call under ASSERT_NO_FATAL_FAILURE: it asserts each file stored its one CRD.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "apiserver-double/api_server_double.h"

namespace gangplank::testing {

inline void SeedNamespaceAndCrds(apiserver_double::ApiServerDouble& api) {
  api.put(nlohmann::json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ml"}}}});
  ASSERT_EQ(api.SeedFile(GANGPLANK_SOURCE_DIR "/crds/gpupool.gangplank.io.yaml"), 1u);
  ASSERT_EQ(api.SeedFile(GANGPLANK_SOURCE_DIR "/crds/queue.gangplank.io.yaml"), 1u);
}

}  // namespace gangplank::testing
