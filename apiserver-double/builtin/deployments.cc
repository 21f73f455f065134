// apps/v1 Deployments: the defaults of k8s.io/kubernetes pkg/apis/apps/v1/defaults.go that readers see
// (replicas, strategy, revisionHistoryLimit, progressDeadlineSeconds), and the rules of
// pkg/apis/apps/validation (ValidateDeploymentSpec, the immutable selector of apps/v1) and of
// pkg/apis/core/validation for the pod template that manifests most often get wrong.
#include <set>
#include <string>
#include <vector>

#include "apiserver-double/builtin/builtin_admission.h"
#include "apiserver-double/schema/go_format.h"
#include "apiserver-double/selectors.h"

namespace gangplank::apiserver_double::builtin {

using nlohmann::json;
namespace s = schema;

namespace {

const json& at(const json& object, const char* pointer) {
  static const json null_value;
  const json::json_pointer p(pointer);
  return object.contains(p) ? object[p] : null_value;
}

// v1.LabelSelector as encoding/json writes it (apimachinery 1.35 prints a bad value so): its fields in
// declaration order (matchLabels, matchExpressions; key, operator, values), empty ones left out.
std::string JsonLabelSelector(const json& selector) {
  std::vector<std::string> fields;
  const json& labels = at(selector, "/matchLabels");
  if (labels.is_object() && !labels.empty()) fields.push_back("\"matchLabels\":" + s::GoJson(labels));
  const json& exprs = at(selector, "/matchExpressions");
  if (exprs.is_array() && !exprs.empty()) {
    std::string list;
    for (const auto& e : exprs) {
      std::string item = "{\"key\":" + s::GoJson(e.value("key", "")) + ",\"operator\":" + s::GoJson(e.value("operator", ""));
      if (e.contains("values") && e["values"].is_array() && !e["values"].empty()) item += ",\"values\":" + s::GoJson(e["values"]);
      list += (list.empty() ? "" : ",") + item + "}";
    }
    fields.push_back("\"matchExpressions\":[" + list + "]");
  }
  std::string out;
  for (const auto& f : fields) out += (out.empty() ? "" : ",") + f;
  return "{" + out + "}";
}

void SetDefault(json& object, const char* pointer, const json& value) {
  const json::json_pointer p(pointer);
  if (!object.contains(p) || object[p].is_null()) object[p] = value;
}

// The pod template rules manifests trip over: containers present, named, with images, names unique,
// every volumeMount naming a volume of the pod (ValidatePodSpec / ValidateVolumeMounts).
void ValidatePodTemplate(const json& spec, const std::string& path, s::FieldErrors& errors) {
  std::set<std::string> volumes;
  if (spec.contains("volumes") && spec["volumes"].is_array()) {
    for (const auto& v : spec["volumes"]) volumes.insert(v.value("name", ""));
  }
  const json& containers = at(spec, "/containers");
  if (!containers.is_array() || containers.empty()) {
    errors.push_back(s::Required(path + ".containers"));
    return;
  }
  std::set<std::string> names;
  for (const char* list : {"initContainers", "containers"}) {
    const json& items = at(spec, (std::string("/") + list).c_str());
    if (!items.is_array()) continue;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string at_path = path + "." + list + "[" + std::to_string(i) + "]";
      const std::string name = items[i].value("name", "");
      if (name.empty()) {
        errors.push_back(s::Required(at_path + ".name"));
      } else if (!names.insert(name).second) {
        errors.push_back(s::Duplicate(at_path + ".name", name));
      }
      if (items[i].value("image", "").empty()) errors.push_back(s::Required(at_path + ".image"));
      const json& mounts = at(items[i], "/volumeMounts");
      if (!mounts.is_array()) continue;
      for (std::size_t m = 0; m < mounts.size(); ++m) {
        const std::string mount = mounts[m].value("name", "");
        if (!volumes.count(mount)) errors.push_back(s::NotFound(at_path + ".volumeMounts[" + std::to_string(m) + "].name", mount));
      }
    }
  }
  const std::string restart = spec.value("restartPolicy", "Always");
  if (restart != "Always") errors.push_back(s::NotSupported(path + ".restartPolicy", restart, {"Always"}));
}

}  // namespace

s::FieldErrors AdmitDeployment(json& deployment, const json* old) {
  SetDefault(deployment, "/spec/replicas", 1);
  SetDefault(deployment, "/spec/revisionHistoryLimit", 10);
  SetDefault(deployment, "/spec/progressDeadlineSeconds", 600);
  SetDefault(deployment, "/spec/strategy/type", "RollingUpdate");
  if (deployment["spec"]["strategy"]["type"] == "RollingUpdate") {
    SetDefault(deployment, "/spec/strategy/rollingUpdate/maxUnavailable", "25%");
    SetDefault(deployment, "/spec/strategy/rollingUpdate/maxSurge", "25%");
  }
  SetDefault(deployment, "/spec/template/spec/restartPolicy", "Always");

  s::FieldErrors errors;
  const json& selector = at(deployment, "/spec/selector");
  const json& labels = at(deployment, "/spec/template/metadata/labels");
  if (!selector.is_object()) {
    errors.push_back(s::Required("spec.selector"));
  } else {
    const LabelSelector parsed = LabelSelector::from_json(selector);
    if (!parsed.empty() && !parsed.matches(labels.is_object() ? labels : json::object())) {
      // The labels as JSON (a map[string]string; null when there are none).
      s::FieldError e = s::Invalid("spec.template.metadata.labels", labels.is_object() ? labels : json(nullptr),
                                   "`selector` does not match template `labels`");
      errors.push_back(e);
    }
    if (old != nullptr && at(*old, "/spec/selector") != selector) {
      s::FieldError e = s::Invalid("spec.selector", nullptr, "field is immutable");
      e.value_text = JsonLabelSelector(selector);
      errors.push_back(e);
    }
  }
  const std::string strategy = deployment["spec"]["strategy"].value("type", "");
  if (strategy != "RollingUpdate" && strategy != "Recreate") {
    errors.push_back(s::NotSupported("spec.strategy.type", strategy, {"Recreate", "RollingUpdate"}));
  }
  const json& replicas = at(deployment, "/spec/replicas");
  if (replicas.is_number_integer() && replicas.get<long long>() < 0) {
    errors.push_back(s::Invalid("spec.replicas", replicas, "must be greater than or equal to 0"));
  }
  ValidatePodTemplate(at(deployment, "/spec/template/spec"), "spec.template.spec", errors);
  return errors;
}

}  // namespace gangplank::apiserver_double::builtin
