// Custom resources through their CRD's schema: how a write's body is decoded (pruning, defaulting,
// fieldValidation), how the result is validated, and how stored objects are read back (defaulted).
#include "apiserver-double/double_impl.h"
#include "apiserver-double/schema/custom_resource_schema.h"
#include "apiserver-double/schema/go_format.h"
#include "apiserver-double/schema/apply_typing.h"

namespace gangplank::apiserver_double {

using nlohmann::json;

namespace {

std::string UnknownFields(const std::vector<std::string>& fields) {
  std::string out;
  for (const auto& f : fields) out += (out.empty() ? "" : ", ") + std::string("unknown field ") + schema::GoQuote(f);
  return out;
}

}  // namespace

FieldValidation ApiServerDouble::Impl::FieldValidationOf(const net::HttpRequest& req) {
  const std::string v = req.QueryParam("fieldValidation").value_or("");
  if (v.empty() || v == "Warn") return FieldValidation::kWarn;
  if (v == "Strict") return FieldValidation::kStrict;
  if (v == "Ignore") return FieldValidation::kIgnore;
  throw BadRequest("fieldValidation must be one of \"Ignore\", \"Warn\" or \"Strict\", got \"" + v + "\"");
}

void ApiServerDouble::Impl::DecodeCustom(const ResourceType& type, json& object, FieldValidation mode,
                                          const std::string& strict_prefix, std::vector<std::string>& warnings) {
  if (!type.schema || !object.is_object()) return;
  const std::vector<std::string> unknown = type.schema->Decode(object);
  if (unknown.empty() || mode == FieldValidation::kIgnore) return;
  if (mode == FieldValidation::kStrict) {
    throw BadRequest(strict_prefix + "strict decoding error: " + UnknownFields(unknown));
  }
  for (const auto& f : unknown) warnings.push_back("unknown field " + schema::GoQuote(f));
}

void ApiServerDouble::Impl::CheckApplyPatch(const ResourceType& type, const json& patch, const std::string& ns,
                                              const std::string& name) {
  if (!type.schema || !patch.is_object()) return;
  const std::vector<std::string> unknown = schema::UndeclaredApplyFields(patch, type.schema->root());
  if (unknown.empty()) return;
  std::string message = "failed to create typed patch object (" + ns + "/" + name + "; " + type.ApiVersion() +
                        ", Kind=" + type.kind + "): ";
  if (unknown.size() == 1) {
    message += unknown.front() + ": field not declared in schema";
  } else {
    message += "errors:";
    for (const auto& f : unknown) message += "\n  " + f + ": field not declared in schema";
  }
  throw ApiError(500, "", message);
}

void ApiServerDouble::Impl::ValidateCustom(const ResourceType& type, const json& object, const json* old,
                                            std::vector<std::string>* warnings) {
  if (!type.schema) return;
  auto outcome = type.schema->Validate(object, old);
  if (warnings != nullptr) warnings->insert(warnings->end(), outcome.warnings.begin(), outcome.warnings.end());
  if (outcome.errors.empty()) return;
  const std::string name = object.value("/metadata/name"_json_pointer, std::string());
  throw schema::InvalidStatus(type.group, type.kind, name, outcome.errors);
}

json ApiServerDouble::Impl::ReadView(const ResourceType& type, const json& stored) {
  json copy = stored;
  if (type.schema) type.schema->DefaultStored(copy);
  return copy;
}

net::HttpResponse ApiServerDouble::Impl::WithWarnings(net::HttpResponse response, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) response.headers.emplace_back("Warning", "299 - " + schema::GoQuote(w));
  return response;
}

}  // namespace gangplank::apiserver_double
