// Parsed documents written back as compact JSON, as Go's encoding/json writes them: the whole
// object kept for extenders (decode_internal.h, WholeObject), which is the object upstream's
// informer holds, and any value (AppendJson).
#include <string>
#include <string_view>

#include "pkg/api/decode_internal.h"
#include "pkg/api/json_out.h"

namespace stowage::api::decode_internal {
namespace {

void AppendElement(std::string& out, dom::element e, bool is_metadata);

// top is the object itself, whose kind and apiVersion go; is_metadata marks its metadata, whose
// managedFields go.
void AppendObject(std::string& out, dom::object o, bool top, bool is_metadata) {
  out += '{';
  bool first = true;
  for (auto field : o) {
    if (top && (field.key == "kind" || field.key == "apiVersion")) continue;
    if (is_metadata && field.key == "managedFields") continue;
    if (!first) out += ',';
    first = false;
    json_out::AppendString(out, field.key);
    out += ':';
    AppendElement(out, field.value, top && field.key == "metadata");
  }
  out += '}';
}

void AppendElement(std::string& out, dom::element e, bool is_metadata) {
  dom::object o;
  dom::array a;
  std::string_view s;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  bool b = false;
  if (e.get_object().get(o) == simdjson::SUCCESS) {
    AppendObject(out, o, false, is_metadata);
  } else if (e.get_array().get(a) == simdjson::SUCCESS) {
    out += '[';
    bool first = true;
    for (dom::element item : a) {
      if (!first) out += ',';
      first = false;
      AppendElement(out, item, false);
    }
    out += ']';
  } else if (e.get_string().get(s) == simdjson::SUCCESS) {
    json_out::AppendString(out, s);
  } else if (e.is_int64() && e.get_int64().get(i) == simdjson::SUCCESS) {
    json_out::AppendNumber(out, i);
  } else if (e.is_uint64() && e.get_uint64().get(u) == simdjson::SUCCESS) {
    json_out::AppendNumber(out, u);
  } else if (e.get_double().get(d) == simdjson::SUCCESS) {
    json_out::AppendNumber(out, d);
  } else if (e.get_bool().get(b) == simdjson::SUCCESS) {
    out += b ? "true" : "false";
  } else {
    out += "null";
  }
}

}  // namespace

std::string WholeObject(dom::object o) {
  std::string out;
  AppendObject(out, o, true, false);
  return out;
}

void AppendJson(std::string& out, dom::element e) { AppendElement(out, e, false); }

}  // namespace stowage::api::decode_internal
