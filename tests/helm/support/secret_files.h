// A rendered Secret's data as the files a pod would see in a secret volume.
#pragma once

#include <filesystem>
#include <string>

#include "base/base64.h"
#include "tests/helm/support/rendered_objects.h"

namespace gangplank::helm_testing {

using base::Base64Decode;  // Secret data and caBundles; throws std::invalid_argument on bad input
// Writes every data key of `secret` (base64-decoded) as a file of `dir`, which it creates.
void write_secret_files(const json& secret, const std::filesystem::path& dir);

}  // namespace gangplank::helm_testing
