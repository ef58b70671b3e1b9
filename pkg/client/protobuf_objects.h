// Private to pkg/client: the protobuf engine of the schema (protobuf_schema.cc), which reads
// every kind declared in pkg/api/schema/*.txt into the struct the JSON decoder of pkg/api gives
// for the same object (tests/unit/client/protobuf_golden_test.cc holds them to it).
#pragma once

#include <string_view>

#include "pkg/client/protobuf_wire.h"

namespace stowage::client::proto {

// Reads the message bytes of a T (an api:: kind) into out; errors are left on r.
template <typename T>
void ReadObject(wire::WireReader& r, std::string_view bytes, T& out);

}  // namespace stowage::client::proto
