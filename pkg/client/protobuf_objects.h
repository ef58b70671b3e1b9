// Private to pkg/client: the readers of protobuf-encoded objects shared by protobuf_*.cc. Each
// reads the fields pkg/api/decode_core.cc reads from JSON, with the same defaults, so both
// decoders give equal structs (tests/unit/client/protobuf_golden_test.cc holds them to it).
#pragma once

#include <string_view>

#include "pkg/api/types.h"
#include "pkg/client/protobuf_wire.h"

namespace stowage::client::proto {

using wire::Field;
using wire::WireReader;

// metav1.ObjectMeta, without kubectl's last-applied-configuration annotation (as the JSON decoder).
void ReadMeta(WireReader& r, std::string_view bytes, api::ObjectMeta& out);
// metav1.Time as JSON writes it (RFC 3339, whole seconds, UTC); a zero time leaves out empty.
void ReadTime(WireReader& r, const Field& field, std::string& out);
// One entry of a map<string, string> field, added to entries.
void ReadMapEntry(WireReader& r, const Field& field, std::vector<api::StringMap::Entry>& entries);
// One entry of a map<string, Quantity> field, added to entries.
void ReadResourceEntry(WireReader& r, const Field& field,
                       std::vector<api::ResourceList::Entry>& entries);
void ReadLabelSelector(WireReader& r, const Field& field, api::LabelSelector& out);
void ReadNodeSelectorTerm(WireReader& r, const Field& field, api::NodeSelectorTerm& out);
void ReadNodeSelector(WireReader& r, const Field& field, api::NodeSelector& out);
// A PodCondition or NodeCondition, told apart by node (their field numbers differ).
void ReadCondition(WireReader& r, const Field& field, bool node, api::Condition& out);

void ReadPod(WireReader& r, std::string_view bytes, api::Pod& out);
void ReadNode(WireReader& r, std::string_view bytes, api::Node& out);

}  // namespace stowage::client::proto
