// Helpers shared by the tests of the whole scheduling queue (queue_test.cc, narrowing_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "pkg/queue/scheduling_queue.h"
#include "stowage/common/clock.h"

namespace stowage::queue {

// Builds spec's framework from registry into *fw and a queue of that one profile around it.
inline ::testing::AssertionResult NewQueue(const framework::Registry& registry,
                                           const framework::ProfileSpec& spec,
                                           framework::Handle& handle, Clock& clock,
                                           std::unique_ptr<framework::Framework>* fw,
                                           std::unique_ptr<SchedulingQueue>* q,
                                           QueueOptions options = {}) {
  auto built = framework::Framework::New(registry, spec, handle);
  if (!built.ok()) return ::testing::AssertionFailure() << built.status();
  *fw = std::move(*built);
  *q = std::make_unique<SchedulingQueue>(
      std::map<std::string, framework::Framework*>{{spec.scheduler_name, fw->get()}}, options,
      clock);
  return ::testing::AssertionSuccess();
}

}  // namespace stowage::queue
