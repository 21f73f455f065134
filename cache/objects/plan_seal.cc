#include "cache/objects/plan_seal.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <chrono>
#include <limits>
#include <stdexcept>

#include "base/base64.h"
#include "cache/objects/admission_time.h"
#include "cache/objects/conventions.h"

namespace gangplank::cache {
namespace {

// Seconds since the admission an id names; infinity for an id that names no time.
double PlanAgeSeconds(std::string_view admission_id) {
  const double at = AdmittedAt(admission_id);
  if (at <= 0) return std::numeric_limits<double>::infinity();
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return now - at;
}

}  // namespace

PlanSeal::PlanSeal(std::string key) : key_(std::move(key)) {
  if (key_.size() < 32) throw std::invalid_argument("the plan seal key has " + std::to_string(key_.size()) + " bytes; at least 32 are needed");
}

std::string PlanSeal::Sign(std::string_view uid, std::string_view node, std::string_view admission_id) const {
  // Newlines cannot occur in a UID, a node name or an admission id, so the message is unambiguous.
  std::string message;
  message.reserve(uid.size() + node.size() + admission_id.size() + 2);
  message.append(uid).append("\n").append(node).append("\n").append(admission_id);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()), reinterpret_cast<const unsigned char*>(message.data()),
           message.size(), mac, &length) == nullptr) {
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  return base::Base64UrlEncode(std::string_view(reinterpret_cast<const char*>(mac), length));
}

bool PlanSeal::Verifies(const PodInfo& pod) const {
  const std::string seal = pod.Annotation(kPlanSealAnnotation);
  const std::string admission_id = pod.Annotation(kAdmissionIdAnnotation);
  const std::string expected = Sign(pod.uid, pod.Annotation(kPlannedNodeAnnotation), admission_id);
  // Constant time: the comparison must not tell a forger how many characters it got right.
  if (pod.uid.empty() || seal.size() != expected.size() || CRYPTO_memcmp(seal.data(), expected.data(), seal.size()) != 0) {
    return false;
  }
  return !pod.node_name.empty() || PlanAgeSeconds(admission_id) < kUnboundPlanSeconds;
}

bool DropUnsealedPlan(PodInfo& pod, const PlanSeal* seal) {
  if (seal == nullptr) return false;
  const bool has_plan = pod.HasAnnotation(kPlannedNodeAnnotation) || pod.HasAnnotation(kAdmissionIdAnnotation);
  if (!has_plan || seal->Verifies(pod)) return false;
  for (const std::string_view key : {kPlannedNodeAnnotation, kAdmissionIdAnnotation, kPlanSealAnnotation}) {
    pod.annotations.erase(std::string(key));
  }
  return true;
}

}  // namespace gangplank::cache
