// Whether a certificate/key file pair is usable for serving HTTPS: both parse and the key matches the
// certificate. Checked before a reload so a half-written renewal never takes the listener down.
#pragma once

#include <string>

namespace gangplank::extender {

// Empty when usable, else what is wrong.
std::string CheckTlsPair(const std::string& cert_file, const std::string& key_file);

}  // namespace gangplank::extender
