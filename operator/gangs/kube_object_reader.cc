#include "operator/gangs/kube_object_reader.h"

#include <cctype>

namespace gangplank::op {

kube::ResourceDescriptor DescriptorOf(const std::string& api_version, const std::string& kind) {
  kube::ResourceDescriptor r;
  const size_t slash = api_version.find('/');
  r.group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  r.version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  r.kind = kind;
  for (char c : kind) r.plural += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  r.plural += "s";
  r.namespaced = true;
  return r;
}

std::optional<nlohmann::json> KubeObjectReader::Get(const std::string& api_version, const std::string& kind,
                                                    const std::string& namespace_, const std::string& name) {
  // A 404 means the object, or its kind (CRD not installed), does not exist: both leave the size unknown.
  return client_->TryGet(DescriptorOf(api_version, kind), namespace_, name);
}

}  // namespace gangplank::op
