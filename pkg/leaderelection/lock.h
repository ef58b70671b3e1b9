// ResourceLock: the object a leader election is held on, and LeaderElectionRecord, the state it
// stores (client-go's resourcelock.Interface and LeaderElectionRecord). The elector reads and
// writes the record only through this interface, so tests can substitute an in-memory lock;
// LeaseLock (lease_lock.h) is the one real implementation, a coordination.k8s.io/v1 Lease.
//
// Implementations must be thread-safe: the elector calls them from its own thread while
// RecordEvent may be called from another.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "stowage/common/clock.h"
#include "stowage/common/status.h"

namespace stowage::leaderelection {

// Who holds the lock and until when. An empty holder_identity means nobody: a leader that steps
// down writes it so that any candidate may acquire at once.
struct LeaderElectionRecord {
  std::string holder_identity;
  int lease_duration_seconds = 0;
  // Unset only in records written by someone else without the field.
  std::optional<WallTime> acquire_time;
  std::optional<WallTime> renew_time;
  int leader_transitions = 0;
  // Coordinated leader election only; carried through, never written by this elector.
  std::string strategy;
  std::string preferred_holder;

  friend bool operator==(const LeaderElectionRecord&, const LeaderElectionRecord&) = default;
};

// What upstream compares to decide whether the record changed since it was last observed: the
// record as JSON with its times at second precision. Two reads of an unchanged record give the
// same key; a renewal within the same second does not change it, exactly as upstream.
std::string RecordKey(const LeaderElectionRecord& record);

class ResourceLock {
 public:
  struct Observed {
    LeaderElectionRecord record;
    std::string key;  // RecordKey(record)
  };

  virtual ~ResourceLock() = default;

  // Reads the record; NotFound when the object does not exist. Remembers the object so that a
  // later Update writes over this version.
  virtual StatusOr<Observed> Get() = 0;
  // Creates the object holding record; AlreadyExists if someone else created it first.
  virtual Status Create(const LeaderElectionRecord& record) = 0;
  // Writes record over the version last read or written; Conflict if the object changed since.
  // FailedPrecondition if neither Get nor Create succeeded before.
  virtual Status Update(const LeaderElectionRecord& record) = 0;
  // Records "<identity> <message>" as a Normal LeaderElection event about the lock object,
  // best effort and without blocking.
  virtual void RecordEvent(std::string_view message) = 0;
  // The identity of this candidate.
  virtual std::string Identity() const = 0;
  // "<namespace>/<name>" of the lock, for logs.
  virtual std::string Describe() const = 0;
};

}  // namespace stowage::leaderelection
