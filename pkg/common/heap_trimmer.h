// The heap trimmer: a thread that hands the pages glibc's malloc keeps free back to the kernel
// (malloc_trim(0)) once a period, so the process's RSS follows its heap.
//
// Why: every thread that allocates gets one of up to eight malloc arenas per core, and an arena
// returns memory to the kernel only from the top of its heap. Under pod churn the pages freed in
// the middle of the arenas stayed resident: RSS crept up by about 0.2 KiB per pod churned while
// the heap in use stayed flat (docs/operations.md, "Memory under churn"). A trim walks the free
// chunks of each arena under its lock; on stowage's heap of tens of MB it takes well under a
// millisecond, so once a minute costs nothing measurable.
//
// Thread-safety: the returned thread is the only state; destroying it (or requesting its stop)
// ends the loop promptly.
#pragma once

#include <functional>
#include <thread>

#include "stowage/common/clock.h"

namespace stowage {

// Hands the free pages of every malloc arena back to the kernel.
void TrimHeap();

// Calls trim every period (TrimHeap unless given) until the thread is stopped or destroyed.
std::jthread StartHeapTrimmer(Duration period, std::function<void()> trim = TrimHeap);

}  // namespace stowage
