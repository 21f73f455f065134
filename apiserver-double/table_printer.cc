#include "apiserver-double/table_printer.h"

#include <chrono>
#include <cctype>
#include <ctime>

#include "apiserver-double/api_error.h"

namespace gangplank::apiserver_double {
namespace {

using nlohmann::json;

json column(const std::string& name, const std::string& type, const std::string& description, int priority = 0,
            const std::string& format = "") {
  return {{"name", name}, {"type", type}, {"format", format}, {"description", description}, {"priority", priority}};
}

std::string str(const json& object, const char* pointer, const std::string& fallback = "") {
  const json::json_pointer ptr(pointer);
  if (!object.contains(ptr)) return fallback;
  const auto& v = object[ptr];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return fallback;
  return v.dump();
}

std::string AgeOf(const json& object) { return HumanAge(str(object, "/metadata/creationTimestamp")); }

// Splits ".a.b[0].c" / "{.a.b}" into steps: names, indexes, and [?(@.k=="v")] filters.
struct Step {
  enum Kind { Field, Index, Filter, Wildcard };
  Step(Kind k, std::string n) : kind(k), name(std::move(n)) {}
  Kind kind;
  std::string name;
  long index = 0;
  std::string filter_field;
  std::string filter_value;
};

std::vector<Step> ParsePath(std::string path) {
  std::vector<Step> steps;
  if (!path.empty() && path.front() == '{') path = path.substr(1, path.size() >= 2 ? path.size() - 2 : 0);
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      std::size_t end = i;
      while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
      if (end > i) steps.push_back({Step::Field, path.substr(i, end - i)});
      i = end;
    } else if (path[i] == '[') {
      const std::size_t close = path.find(']', i);
      if (close == std::string::npos) return {};
      const std::string inner = path.substr(i + 1, close - i - 1);
      if (inner == "*") {
        steps.push_back({Step::Wildcard, ""});
      } else if (inner.rfind("?(@.", 0) == 0) {
        const auto eq = inner.find("==");
        if (eq == std::string::npos) return {};
        Step s{Step::Filter, ""};
        s.filter_field = inner.substr(4, eq - 4);
        std::string value = inner.substr(eq + 2);
        if (!value.empty() && value.back() == ')') value.pop_back();
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'')) value = value.substr(1, value.size() - 2);
        s.filter_value = value;
        steps.push_back(s);
      } else {
        Step s{Step::Index, ""};
        try {
          s.index = std::stol(inner);
        } catch (...) {
          return {};
        }
        steps.push_back(s);
      }
      i = close + 1;
    } else {
      std::size_t end = i;
      while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
      steps.push_back({Step::Field, path.substr(i, end - i)});
      i = end;
    }
  }
  return steps;
}

std::string cell_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// "a=b,c=d", as kubectl prints selectors.
std::string label_list(const json& labels) {
  std::string out;
  for (const auto& [k, v] : labels.items()) out += (out.empty() ? "" : ",") + k + "=" + cell_text(v);
  return out;
}

// What a row carries besides its cells (the request's includeObject): kubectl --sort-by asks for the
// whole object, since it sorts on fields the cells do not hold (.lastTimestamp).
json row_object(const ResourceType& type, const json& object, IncludeObject include) {
  if (include == IncludeObject::kNone) return nullptr;
  if (include == IncludeObject::kObject) {
    json full = object;
    full["apiVersion"] = type.ApiVersion();
    full["kind"] = type.kind;
    return full;
  }
  json metadata = object.contains("metadata") ? object["metadata"] : json::object();
  return {{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", metadata}};
}

// The kube-apiserver's Event table (pkg/printers/internalversion): always generated wide, with the
// name last; "Last Seen" falls back to the first timestamp, then the event time.
json event_columns() {
  return json::array({column("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
                      column("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
                      column("Reason", "string", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
                      column("Object", "string", "The object that this event is about."),
                      column("Subobject", "string", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.", 1),
                      column("Source", "string", "The component reporting this event. Should be a short machine understandable string.", 1),
                      column("Message", "string", "A human-readable description of the status of this operation."),
                      column("First Seen", "string", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1),
                      column("Count", "string", "The number of times this event has occurred.", 1),
                      column("Name", "string", "Name must be unique within a namespace.", 1, "name")});
}

std::string first_non_empty(const std::string& a, const std::string& b) { return a.empty() ? b : a; }

json event_cells(const json& event) {
  std::string first = HumanAge(str(event, "/firstTimestamp"));
  if (str(event, "/firstTimestamp").empty()) first = HumanAge(str(event, "/eventTime"));
  std::string last = str(event, "/lastTimestamp").empty() ? first : HumanAge(str(event, "/lastTimestamp"));
  long count = event.value("count", 0L);
  if (event.contains("series") && event["series"].is_object()) {
    last = HumanAge(str(event, "/series/lastObservedTime"));
    count = event["series"].value("count", 0L);
  } else if (count == 0) {
    count = 1;  // a singleton event of the events.k8s.io API has no count
  }
  std::string kind = str(event, "/involvedObject/kind");
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string name = str(event, "/involvedObject/name");
  const std::string component = first_non_empty(str(event, "/source/component"), str(event, "/reportingComponent"));
  const std::string instance = first_non_empty(str(event, "/source/host"), str(event, "/reportingInstance"));
  std::string message = str(event, "/message");
  message.erase(0, message.find_first_not_of(" \t\r\n"));
  message.erase(message.find_last_not_of(" \t\r\n") + 1);
  return json::array({last, str(event, "/type"), str(event, "/reason"), name.empty() ? kind : kind + "/" + name,
                      str(event, "/involvedObject/fieldPath"), instance.empty() ? component : component + ", " + instance,
                      message, first, count, str(event, "/metadata/name")});
}

}  // namespace

json EvaluateJsonPath(const json& object, const std::string& path) {
  std::vector<json> current{object};
  for (const Step& step : ParsePath(path)) {
    std::vector<json> next;
    for (const json& node : current) {
      switch (step.kind) {
        case Step::Field:
          if (node.is_object() && node.contains(step.name)) next.push_back(node[step.name]);
          break;
        case Step::Index:
          if (node.is_array()) {
            const long n = static_cast<long>(node.size());
            const long i = step.index < 0 ? n + step.index : step.index;
            if (i >= 0 && i < n) next.push_back(node[static_cast<std::size_t>(i)]);
          }
          break;
        case Step::Wildcard:
          if (node.is_array()) next.insert(next.end(), node.begin(), node.end());
          break;
        case Step::Filter:
          if (node.is_array()) {
            for (const auto& item : node) {
              if (item.is_object() && item.contains(step.filter_field) && cell_text(item[step.filter_field]) == step.filter_value) {
                next.push_back(item);
              }
            }
          }
          break;
      }
    }
    current = std::move(next);
  }
  if (current.empty()) return nullptr;
  if (current.size() == 1) return current.front();
  return json(current);
}

std::string HumanAge(const std::string& timestamp) {
  std::tm tm{};
  if (timestamp.size() < 19 || strptime(timestamp.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) return "<unknown>";
  const std::time_t then = timegm(&tm);
  const long long seconds = static_cast<long long>(std::time(nullptr) - then);
  if (seconds < 0) return "0s";
  if (seconds < 120) return std::to_string(seconds) + "s";
  const long long minutes = seconds / 60;
  if (minutes < 10) return std::to_string(minutes) + "m" + (seconds % 60 ? std::to_string(seconds % 60) + "s" : "");
  if (minutes < 180) return std::to_string(minutes) + "m";
  const long long hours = minutes / 60;
  if (hours < 8) return std::to_string(hours) + "h" + (minutes % 60 ? std::to_string(minutes % 60) + "m" : "");
  if (hours < 48) return std::to_string(hours) + "h";
  const long long days = hours / 24;
  if (days < 8) return std::to_string(days) + "d" + (hours % 24 ? std::to_string(hours % 24) + "h" : "");
  if (days < 365 * 2) return std::to_string(days) + "d";
  return std::to_string(days / 365) + "y";
}

json TableColumns(const ResourceType& type) {
  const std::string name_desc = "Name must be unique within a namespace.";
  json cols = json::array({column("Name", "string", name_desc, 0, "name")});
  const std::string age_desc = "CreationTimestamp is a timestamp representing the server time when this object was created.";
  if (type.custom) {
    // The CRD's printer columns, or Age alone when it declares none (serveDefaultColumnsIfEmpty).
    for (const auto& c : type.printer_columns) {
      cols.push_back(column(c.value("name", std::string()), c.value("type", std::string("string")),
                            c.value("description", std::string()), c.value("priority", 0), c.value("format", std::string())));
    }
    if (type.printer_columns.empty()) cols.push_back(column("Age", "date", age_desc));
    return cols;
  }
  if (type.kind == "Pod") {
    cols.push_back(column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."));
    cols.push_back(column("Status", "string", "The aggregate status of the containers in this pod."));
    cols.push_back(column("Restarts", "string", "The number of times the containers in this pod have been restarted."));
    cols.push_back(column("Age", "string", age_desc));
    cols.push_back(column("IP", "string", "IP address allocated to the pod.", 1));
    cols.push_back(column("Node", "string", "Name of the node the pod is assigned to.", 1));
  } else if (type.kind == "Node") {
    cols.push_back(column("Status", "string", "The status of the node"));
    cols.push_back(column("Roles", "string", "The roles of the node"));
    cols.push_back(column("Age", "string", age_desc));
    cols.push_back(column("Version", "string", "Kubelet Version reported by the node."));
  } else if (type.kind == "Namespace") {
    cols.push_back(column("Status", "string", "The status of the namespace"));
    cols.push_back(column("Age", "string", age_desc));
  } else if (type.kind == "PodDisruptionBudget") {
    cols.push_back(column("Min Available", "string", "The minimum number of pods that must be available."));
    cols.push_back(column("Max Unavailable", "string", "The maximum number of pods that may be unavailable."));
    cols.push_back(column("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."));
    cols.push_back(column("Age", "string", age_desc));
  } else if (type.kind == "Lease") {
    cols.push_back(column("Holder", "string", "The holder of the lease."));
    cols.push_back(column("Age", "string", age_desc));
  } else if (type.kind == "Event") {
    return event_columns();
  } else if (type.kind == "CustomResourceDefinition" || type.kind == "Role" || type.kind == "ClusterRole") {
    cols[0] = column("Name", "string", name_desc, 0, "name");
    cols.push_back(column("Created At", "date", age_desc));
  } else if (type.kind == "Deployment") {
    cols.push_back(column("Ready", "string", "Number of the pod with ready state"));
    cols.push_back(column("Up-to-date", "integer", "Total number of non-terminated pods targeted by this deployment that have the desired template spec."));
    cols.push_back(column("Available", "integer", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."));
    cols.push_back(column("Age", "string", age_desc));
    cols.push_back(column("Containers", "string", "Names of each container in the template.", 1));
    cols.push_back(column("Images", "string", "Images referenced by each container in the template.", 1));
    cols.push_back(column("Selector", "string", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.", 1));
  } else if (type.kind == "Service") {
    cols.push_back(column("Type", "string", "type determines how the Service is exposed."));
    cols.push_back(column("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly."));
    cols.push_back(column("External-IP", "string", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."));
    cols.push_back(column("Port(s)", "string", "The list of ports that are exposed by this service."));
    cols.push_back(column("Age", "string", age_desc));
    cols.push_back(column("Selector", "string", "Route service traffic to pods with label keys and values matching this selector.", 1));
  } else if (type.kind == "ServiceAccount") {
    cols.push_back(column("Secrets", "integer", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use."));
    cols.push_back(column("Age", "string", age_desc));
  } else if (type.kind == "ConfigMap") {
    cols.push_back(column("Data", "integer", "Data contains the configuration data."));
    cols.push_back(column("Age", "string", age_desc));
  } else if (type.kind == "Secret") {
    cols.push_back(column("Type", "string", "Used to facilitate programmatic handling of secret data."));
    cols.push_back(column("Data", "integer", "Data contains the secret data."));
    cols.push_back(column("Age", "string", age_desc));
  } else if (type.kind == "RoleBinding" || type.kind == "ClusterRoleBinding") {
    cols.push_back(column("Role", "string", "Role identifies the Role or ClusterRole this binding refers to."));
    cols.push_back(column("Age", "string", age_desc));
    cols.push_back(column("Users", "string", "Users in the roleBinding", 1));
    cols.push_back(column("Groups", "string", "Groups in the roleBinding", 1));
    cols.push_back(column("ServiceAccounts", "string", "ServiceAccounts in the roleBinding", 1));
  } else if (type.kind == "MutatingWebhookConfiguration") {
    cols.push_back(column("Webhooks", "integer", "Webhooks is a list of webhooks and the affected resources and operations."));
    cols.push_back(column("Age", "string", age_desc));
  } else {
    cols.push_back(column("Age", "string", age_desc));
  }
  return cols;
}

json TableRow(const ResourceType& type, const json& object, IncludeObject include) {
  json cells = json::array({str(object, "/metadata/name")});
  if (type.custom) {
    for (const auto& c : type.printer_columns) {
      json v = EvaluateJsonPath(object, c.value("jsonPath", std::string()));
      const std::string t = c.value("type", std::string("string"));
      if (v.is_null()) {
        cells.push_back(nullptr);
      } else if (t == "date") {
        cells.push_back(HumanAge(cell_text(v)));
      } else if ((t == "integer" || t == "number") && v.is_number()) {
        cells.push_back(v);
      } else if (t == "boolean" && v.is_boolean()) {
        cells.push_back(v);
      } else {
        cells.push_back(cell_text(v));
      }
    }
    if (type.printer_columns.empty()) cells.push_back(AgeOf(object));
  } else if (type.kind == "Pod") {
    const auto containers = object.contains("/spec/containers"_json_pointer) ? object["/spec/containers"_json_pointer].size() : 0;
    std::size_t ready = 0;
    long restarts = 0;
    if (object.contains("/status/containerStatuses"_json_pointer)) {
      for (const auto& cs : object["/status/containerStatuses"_json_pointer]) {
        if (cs.value("ready", false)) ++ready;
        restarts += cs.value("restartCount", 0L);
      }
    }
    std::string status = str(object, "/status/phase", "Pending");
    if (object.contains("/metadata/deletionTimestamp"_json_pointer)) status = "Terminating";
    cells.push_back(std::to_string(ready) + "/" + std::to_string(containers));
    cells.push_back(status);
    cells.push_back(std::to_string(restarts));
    cells.push_back(AgeOf(object));
    cells.push_back(str(object, "/status/podIP", "<none>"));
    cells.push_back(str(object, "/spec/nodeName", "<none>"));
  } else if (type.kind == "Node") {
    std::string status = "Unknown";
    if (object.contains("/status/conditions"_json_pointer)) {
      for (const auto& c : object["/status/conditions"_json_pointer]) {
        if (c.value("type", std::string()) == "Ready") status = c.value("status", std::string()) == "True" ? "Ready" : "NotReady";
      }
    }
    if (object.value("/spec/unschedulable"_json_pointer, false)) status += ",SchedulingDisabled";
    std::string roles;
    if (object.contains("/metadata/labels"_json_pointer)) {
      const std::string prefix = "node-role.kubernetes.io/";
      for (const auto& [k, v] : object["/metadata/labels"_json_pointer].items()) {
        if (k.rfind(prefix, 0) == 0) roles += (roles.empty() ? "" : ",") + k.substr(prefix.size());
      }
    }
    cells.push_back(status);
    cells.push_back(roles.empty() ? "<none>" : roles);
    cells.push_back(AgeOf(object));
    cells.push_back(str(object, "/status/nodeInfo/kubeletVersion", ""));
  } else if (type.kind == "Namespace") {
    cells.push_back(str(object, "/status/phase", "Active"));
    cells.push_back(AgeOf(object));
  } else if (type.kind == "PodDisruptionBudget") {
    cells.push_back(str(object, "/spec/minAvailable", "N/A"));
    cells.push_back(str(object, "/spec/maxUnavailable", "N/A"));
    cells.push_back(object.value("/status/disruptionsAllowed"_json_pointer, 0));
    cells.push_back(AgeOf(object));
  } else if (type.kind == "Lease") {
    cells.push_back(str(object, "/spec/holderIdentity", ""));
    cells.push_back(AgeOf(object));
  } else if (type.kind == "Event") {
    cells = event_cells(object);
  } else if (type.kind == "CustomResourceDefinition" || type.kind == "Role" || type.kind == "ClusterRole") {
    cells.push_back(str(object, "/metadata/creationTimestamp"));
  } else if (type.kind == "Deployment") {
    const json& status = object.contains("status") ? object["status"] : json::object();
    cells.push_back(std::to_string(status.value("readyReplicas", 0)) + "/" +
                    std::to_string(object.value("/spec/replicas"_json_pointer, 1)));
    cells.push_back(status.value("updatedReplicas", 0));
    cells.push_back(status.value("availableReplicas", 0));
    cells.push_back(AgeOf(object));
    std::string names, images;
    for (const auto& c : object.value("/spec/template/spec/containers"_json_pointer, json::array())) {
      names += (names.empty() ? "" : ",") + c.value("name", std::string());
      images += (images.empty() ? "" : ",") + c.value("image", std::string());
    }
    cells.push_back(names);
    cells.push_back(images);
    cells.push_back(label_list(object.value("/spec/selector/matchLabels"_json_pointer, json::object())));
  } else if (type.kind == "Service") {
    cells.push_back(str(object, "/spec/type", "ClusterIP"));
    cells.push_back(str(object, "/spec/clusterIP", "<none>"));
    std::string external;
    for (const auto& ip : object.value("/spec/externalIPs"_json_pointer, json::array())) {
      external += (external.empty() ? "" : ",") + cell_text(ip);
    }
    cells.push_back(external.empty() ? "<none>" : external);
    std::string ports;
    for (const auto& port : object.value("/spec/ports"_json_pointer, json::array())) {
      ports += (ports.empty() ? "" : ",") + cell_text(port.value("port", json(0)));
      if (port.contains("nodePort")) ports += ":" + cell_text(port["nodePort"]);
      ports += "/" + port.value("protocol", std::string("TCP"));
    }
    cells.push_back(ports.empty() ? "<none>" : ports);
    cells.push_back(AgeOf(object));
    const json selector = object.value("/spec/selector"_json_pointer, json::object());
    cells.push_back(selector.empty() ? "<none>" : label_list(selector));
  } else if (type.kind == "ServiceAccount") {
    cells.push_back(object.value("secrets", json::array()).size());
    cells.push_back(AgeOf(object));
  } else if (type.kind == "ConfigMap") {
    cells.push_back(object.value("data", json::object()).size() + object.value("binaryData", json::object()).size());
    cells.push_back(AgeOf(object));
  } else if (type.kind == "Secret") {
    cells.push_back(str(object, "/type", "Opaque"));
    cells.push_back(object.value("data", json::object()).size());
    cells.push_back(AgeOf(object));
  } else if (type.kind == "RoleBinding" || type.kind == "ClusterRoleBinding") {
    cells.push_back(str(object, "/roleRef/kind") + "/" + str(object, "/roleRef/name"));
    cells.push_back(AgeOf(object));
    std::string users, groups, accounts;
    for (const auto& s : object.value("subjects", json::array())) {
      const std::string kind = s.value("kind", std::string());
      const std::string name = s.value("name", std::string());
      if (kind == "User") users += (users.empty() ? "" : ", ") + name;
      if (kind == "Group") groups += (groups.empty() ? "" : ", ") + name;
      if (kind == "ServiceAccount") accounts += (accounts.empty() ? "" : ", ") + s.value("namespace", std::string()) + "/" + name;
    }
    cells.push_back(users);
    cells.push_back(groups);
    cells.push_back(accounts);
  } else if (type.kind == "MutatingWebhookConfiguration") {
    cells.push_back(object.value("webhooks", json::array()).size());
    cells.push_back(AgeOf(object));
  } else {
    cells.push_back(AgeOf(object));
  }
  return {{"cells", cells}, {"object", row_object(type, object, include)}};
}

IncludeObject IncludeObjectParam(const std::optional<std::string>& value) {
  if (!value || value->empty() || *value == "Metadata") return IncludeObject::kMetadata;
  if (*value == "None") return IncludeObject::kNone;
  if (*value == "Object") return IncludeObject::kObject;
  throw ApiError(400, "BadRequest", "Unable to convert to Table as requested: includeObject: Invalid value: \"" + *value +
                                        "\": must be 'Metadata', 'Object', 'None', or empty");
}

json MakeTable(const ResourceType& type, const std::vector<json>& objects, const json& list_metadata, IncludeObject include) {
  json rows = json::array();
  for (const auto& o : objects) rows.push_back(TableRow(type, o, include));
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", list_metadata},
          {"columnDefinitions", TableColumns(type)},
          {"rows", rows}};
}

}  // namespace gangplank::apiserver_double
