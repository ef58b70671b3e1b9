// Joining lists of messages the way upstream's Go code prints them, so error text stays
// byte-for-byte comparable with kube-scheduler's (tests compare against upstream fixtures).
// Every list of messages in the tree is joined here rather than by a hand-written loop.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stowage/common/status.h"

namespace stowage {

// strings.Join: the parts separated by sep ("a; b"); "" for none.
std::string Join(const std::vector<std::string>& parts, std::string_view sep);

// utilerrors.NewAggregate(errs).Error(): duplicates dropped, a single message alone, several as
// "[a, b]"; "" for none.
std::string JoinAggregate(const std::vector<std::string>& messages);

// Two outcomes as one: the failing one, or both messages joined by "; " under a's code; OK when
// both are.
Status JoinStatus(const Status& a, const Status& b);

}  // namespace stowage
