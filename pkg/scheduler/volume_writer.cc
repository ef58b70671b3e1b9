#include "pkg/scheduler/volume_writer.h"

#include <string>

#include "pkg/api/decode.h"
#include "pkg/api/encode.h"
#include "pkg/client/resources.h"

namespace stowage::scheduler {
namespace {

// {"resourceVersion":...,"annotations":{...}}: the precondition and every annotation (a merge
// patch only adds and changes keys, and the binder never removes one).
std::string MetadataPatch(const api::ObjectMeta& meta) {
  std::string out =
      "{\"resourceVersion\":" + api::JsonQuote(meta.resource_version) + ",\"annotations\":{";
  bool first = true;
  for (const auto& [k, v] : meta.annotations.entries()) {
    if (!first) out += ',';
    first = false;
    out += api::JsonQuote(k) + ":" + api::JsonQuote(v);
  }
  return out + "}}";
}

template <typename T>
StatusOr<std::shared_ptr<const T>> Answer(StatusOr<std::string> body, std::string_view what) {
  if (!body.ok()) return body.status();
  auto obj = api::Decode<T>(*body);
  if (!obj.ok()) {
    return InternalError("decoding the updated " + std::string(what) + ": " +
                         std::string(obj.status().message()));
  }
  return std::make_shared<const T>(std::move(*obj));
}

}  // namespace

Status MayWrite(const std::function<bool()>& may_write, std::string_view what) {
  if (may_write && !may_write()) {
    return FailedPreconditionError("not updating " + std::string(what) +
                                   ": this scheduler's lease may have expired");
  }
  return OkStatus();
}

StatusOr<std::shared_ptr<const api::PersistentVolume>> ClientVolumeWriter::UpdateVolume(
    const api::PersistentVolume& pv) {
  const std::string what = "persistentvolume \"" + pv.metadata.name + "\"";
  if (auto s = MayWrite(may_write_, what); !s.ok()) return s;
  std::string patch = "{\"metadata\":" + MetadataPatch(pv.metadata) + ",\"spec\":{\"claimRef\":";
  if (!pv.claim_ref) {
    patch += "null";
  } else {
    const api::ObjectReference& r = *pv.claim_ref;
    patch += "{\"kind\":" + api::JsonQuote(r.kind) +
             ",\"namespace\":" + api::JsonQuote(r.namespace_) +
             ",\"name\":" + api::JsonQuote(r.name) + ",\"uid\":" + api::JsonQuote(r.uid) +
             ",\"apiVersion\":" + api::JsonQuote(r.api_version) +
             ",\"resourceVersion\":" + api::JsonQuote(r.resource_version) + "}";
  }
  patch += "}}";
  return Answer<api::PersistentVolume>(
      client_.Patch(client::ObjectPath<api::PersistentVolume>("", pv.metadata.name),
                    std::move(patch), client::kMergePatch),
      what);
}

StatusOr<std::shared_ptr<const api::PersistentVolumeClaim>> ClientVolumeWriter::UpdateClaim(
    const api::PersistentVolumeClaim& claim) {
  const std::string what =
      "persistentvolumeclaim \"" + claim.metadata.namespace_ + "/" + claim.metadata.name + "\"";
  if (auto s = MayWrite(may_write_, what); !s.ok()) return s;
  std::string patch = "{\"metadata\":" + MetadataPatch(claim.metadata) + "}";
  return Answer<api::PersistentVolumeClaim>(
      client_.Patch(client::ObjectPath<api::PersistentVolumeClaim>(claim.metadata.namespace_,
                                                                   claim.metadata.name),
                    std::move(patch), client::kMergePatch),
      what);
}

}  // namespace stowage::scheduler
