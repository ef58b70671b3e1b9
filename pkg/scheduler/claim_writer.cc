#include "pkg/scheduler/claim_writer.h"

#include <algorithm>
#include <string>

#include "pkg/api/decode.h"
#include "pkg/api/encode.h"
#include "pkg/client/resources.h"
#include "pkg/metrics/metrics.h"
#include "pkg/scheduler/volume_writer.h"

namespace stowage::scheduler {
namespace {

std::string Describe(const api::ResourceClaim& claim) {
  return "resourceclaim \"" + claim.metadata.namespace_ + "/" + claim.metadata.name + "\"";
}

StatusOr<std::shared_ptr<const api::ResourceClaim>> Answer(StatusOr<std::string> body,
                                                           std::string_view what) {
  if (!body.ok()) return body.status();
  auto obj = api::Decode<api::ResourceClaim>(*body);
  if (!obj.ok()) {
    return InternalError("decoding the updated " + std::string(what) + ": " +
                         std::string(obj.status().message()));
  }
  return std::make_shared<const api::ResourceClaim>(std::move(*obj));
}

// The value of the first member named key in json, an object the schema encoder wrote (balanced
// brackets outside strings); empty if there is none.
std::string MemberValue(const std::string& json, std::string_view key) {
  const std::string quoted = api::JsonQuote(key) + ":";
  const size_t at = json.find(quoted);
  if (at == std::string::npos) return "";
  const size_t begin = at + quoted.size();
  int depth = 0;
  bool in_string = false;
  for (size_t i = begin; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '{' || c == '[')
      ++depth;
    else if (c == '}' || c == ']') {
      if (--depth < 0) return json.substr(begin, i - begin);
    } else if (c == ',' && depth == 0) {
      return json.substr(begin, i - begin);
    }
    if (depth == 0 && (c == '}' || c == ']')) return json.substr(begin, i + 1 - begin);
  }
  return json.substr(begin);
}

}  // namespace

StatusOr<std::shared_ptr<const api::ResourceClaim>> ClientClaimWriter::AddClaimFinalizer(
    const api::ResourceClaim& claim, std::string_view finalizer) {
  const std::string what = Describe(claim);
  if (auto s = MayWrite(may_write_, what); !s.ok()) return s;
  // Finalizers merge by value in a strategic merge patch, so the others stay.
  std::string patch =
      "{\"metadata\":{\"resourceVersion\":" + api::JsonQuote(claim.metadata.resource_version) +
      ",\"finalizers\":[" + api::JsonQuote(finalizer) + "]}}";
  return Answer(client_.Patch(client::ObjectPath<api::ResourceClaim>(claim.metadata.namespace_,
                                                                     claim.metadata.name),
                              std::move(patch), client::kStrategicMergePatch),
                what);
}

StatusOr<std::shared_ptr<const api::ResourceClaim>> ClientClaimWriter::UpdateClaimStatus(
    const api::ResourceClaim& claim) {
  const std::string what = Describe(claim);
  if (auto s = MayWrite(may_write_, what); !s.ok()) return s;
  // Only the precondition and the status the scheduler owns, so that a merge patch leaves the
  // spec and the drivers' device statuses alone; reservedFor is replaced whole.
  std::string patch =
      "{\"metadata\":{\"resourceVersion\":" + api::JsonQuote(claim.metadata.resource_version) +
      "},\"status\":{";
  // The schema encodes whole kinds only: the two fields are taken out of the claim's encoding.
  const std::string full = api::EncodeJson(claim);
  const std::string encoded = full.substr(std::min(full.find("\"status\":"), full.size()));
  const std::string allocation = claim.allocation ? MemberValue(encoded, "allocation") : "";
  const std::string reserved =
      claim.reserved_for.empty() ? "" : MemberValue(encoded, "reservedFor");
  patch += "\"allocation\":" + (allocation.empty() ? std::string("null") : allocation);
  patch += ",\"reservedFor\":" + (reserved.empty() ? std::string("null") : reserved);
  // A deallocated claim loses its drivers' device statuses too, as upstream's PostFilter does.
  if (!claim.allocation) patch += ",\"devices\":null";
  patch += "}}";
  return Answer(client_.Patch(client::ObjectPath<api::ResourceClaim>(claim.metadata.namespace_,
                                                                     claim.metadata.name) +
                                  "/status",
                              std::move(patch), client::kMergePatch),
                what);
}

StatusOr<std::shared_ptr<const api::ResourceClaim>> ClientClaimWriter::CreateClaim(
    const api::ResourceClaim& claim) {
  const std::string what = "resourceclaim for \"" + claim.metadata.namespace_ + "/" +
                           claim.metadata.generate_name + "\"";
  if (auto s = MayWrite(may_write_, what); !s.ok()) return s;
  api::ResourceClaim fresh;
  fresh.metadata.namespace_ = claim.metadata.namespace_;
  fresh.metadata.name = claim.metadata.name;
  fresh.metadata.generate_name = claim.metadata.generate_name;
  fresh.metadata.owner_references = claim.metadata.owner_references;
  fresh.metadata.annotations = claim.metadata.annotations;
  fresh.metadata.labels = claim.metadata.labels;
  fresh.devices = claim.devices;
  auto created =
      Answer(client_.Post(client::CollectionPath<api::ResourceClaim>(claim.metadata.namespace_),
                          api::EncodeJson(fresh)),
             what);
  metrics::ResourceClaimCreates(created.ok()).Increment();
  return created;
}

Status ClientClaimWriter::DeleteClaim(const api::ResourceClaim& claim, std::string_view finalizer) {
  const std::string what = Describe(claim);
  if (auto s = MayWrite(may_write_, what); !s.ok()) return s;
  const std::string path =
      client::ObjectPath<api::ResourceClaim>(claim.metadata.namespace_, claim.metadata.name);
  // Removing one finalizer by value needs no resourceVersion, so no conflict can stop it.
  std::string patch = "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[" +
                      api::JsonQuote(finalizer) + "]}}";
  auto patched = client_.Patch(path, std::move(patch), client::kStrategicMergePatch);
  if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) {
    return Status(patched.status().code(), "remove the finalizer of " + what + ": " +
                                               std::string(patched.status().message()));
  }
  auto deleted = client_.Delete(path);
  if (!deleted.ok() && deleted.status().code() != StatusCode::kNotFound) {
    return Status(deleted.status().code(),
                  "delete " + what + ": " + std::string(deleted.status().message()));
  }
  return OkStatus();
}

}  // namespace stowage::scheduler
