// Claim constraints: matchAttribute (all devices of the named requests share an attribute value)
// and distinctAttribute (no two of them share one).
//
// A constraint is stateful and belongs to one Allocate call: Add is called for each device about
// to be allocated, and each successful Add is undone by exactly one Remove with the same
// arguments, in reverse order. Constraints are monotonic: once Add fails, adding more devices
// never makes it pass, which lets the search prune early.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/dra/device_id.h"
#include "stowage/api/types.h"

namespace stowage::dra {

class Constraint {
 public:
  virtual ~Constraint() = default;
  // request is the claim's request name, sub the subrequest's ("" for none).
  virtual bool Add(std::string_view request, std::string_view sub, const api::Device& device,
                   const DeviceRef& id) = 0;
  virtual void Remove(std::string_view request, std::string_view sub, const api::Device& device,
                      const DeviceRef& id) = 0;
};

// The constraint spec describes, or nullptr when it sets neither kind.
std::unique_ptr<Constraint> MakeConstraint(const api::DeviceConstraint& spec);

// The attribute called name ("domain/id"), looked up fully qualified and, when the domain is the
// device's driver, by its bare id as well.
const api::DeviceAttribute* LookupAttribute(const api::Device& device, const DeviceRef& id,
                                            std::string_view name);

}  // namespace stowage::dra
