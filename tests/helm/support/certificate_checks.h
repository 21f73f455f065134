// Certificates checked with the openssl command line, on PEM texts: whom a certificate chains to, whether
// it is a CA, whether a key is its own, when it ends. Shared by the chart's render tests and its
// install/upgrade tests on the real API server.
#pragma once

#include <ctime>
#include <optional>
#include <string>

namespace gangplank::helm_testing {

// Why openssl cannot be used ("" when it can).
std::string openssl_unavailable_reason();
// `openssl verify -CAfile <ca>` of `cert`; with `hostname`, also -verify_hostname.
bool chains_to(const std::string& cert_pem, const std::string& ca_pem, const std::string& hostname = "");
// basicConstraints CA:TRUE.
bool is_ca(const std::string& cert_pem);
// The private key is the certificate's own (same public key).
bool key_matches(const std::string& cert_pem, const std::string& key_pem);
// notAfter, in seconds since the epoch (nullopt when openssl cannot read the certificate).
std::optional<std::time_t> not_after(const std::string& cert_pem);
// "2027-11-26T20:12:30Z" (UTC only) in seconds since the epoch; nullopt when malformed.
std::optional<std::time_t> parse_utc_time(const std::string& text);
// SHA-256 of a text, lowercase hex (Helm's sha256sum).
std::string sha256_hex(const std::string& text);

}  // namespace gangplank::helm_testing
