// Base64 (RFC 4648), the one codec of the binaries: the standard alphabet with padding (Kubernetes'
// []byte fields and kubeconfig data, HTTP Basic credentials, an AdmissionReview's patch) and the URL
// alphabet without padding (the plan seal, which travels in an annotation).
#pragma once

#include <string>
#include <string_view>

namespace gangplank::base {

std::string Base64Encode(std::string_view bytes);
std::string Base64UrlEncode(std::string_view bytes);  // '-' and '_', no '=' padding.
// The standard alphabet; whitespace (as in PEM or wrapped YAML) is skipped. Throws std::invalid_argument
// on a character outside the alphabet, data after the padding, or a truncated group.
std::string Base64Decode(std::string_view text);

}  // namespace gangplank::base
