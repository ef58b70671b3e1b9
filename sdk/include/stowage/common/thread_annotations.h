// Clang thread-safety annotations, checked by the clang build (build-clang, -Wthread-safety
// -Werror=thread-safety, run by scripts/test); they expand to nothing under GCC. They mean
// something only on a capability type: use stowage::Mutex / SharedMutex (stowage/common/mutex.h),
// never a bare std::mutex, for anything a GUARDED_BY names.
#pragma once

#if defined(__clang__)
#define STOWAGE_TSA(x) __attribute__((x))
#else
#define STOWAGE_TSA(x)
#endif

// On a class: its instances are locks (a "capability" named in diagnostics).
#define CAPABILITY(x) STOWAGE_TSA(capability(x))
// On an RAII class: constructing it acquires, destroying it releases.
#define SCOPED_CAPABILITY STOWAGE_TSA(scoped_lockable)

// On data: reads and writes need the lock (PT_: the pointee, not the pointer).
#define GUARDED_BY(x) STOWAGE_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) STOWAGE_TSA(pt_guarded_by(x))

// On functions: the caller must hold (REQUIRES) or must not hold (EXCLUDES) the lock.
#define REQUIRES(...) STOWAGE_TSA(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) STOWAGE_TSA(requires_shared_capability(__VA_ARGS__))
#define EXCLUDES(...) STOWAGE_TSA(locks_excluded(__VA_ARGS__))

// On functions: they take or give up the lock (exclusively or shared).
#define ACQUIRE(...) STOWAGE_TSA(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) STOWAGE_TSA(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) STOWAGE_TSA(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) STOWAGE_TSA(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) STOWAGE_TSA(release_generic_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) STOWAGE_TSA(try_acquire_capability(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) STOWAGE_TSA(assert_capability(x))

// Turns the analysis off for one function; say in a comment why the analysis cannot follow it.
#define NO_THREAD_SAFETY_ANALYSIS STOWAGE_TSA(no_thread_safety_analysis)
