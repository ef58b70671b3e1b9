// Clang thread-safety annotations (checked by the clang CI build with -Wthread-safety);
// they expand to nothing under GCC.
#pragma once

#if defined(__clang__)
#define STOWAGE_TSA(x) __attribute__((x))
#else
#define STOWAGE_TSA(x)
#endif

#define GUARDED_BY(x) STOWAGE_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) STOWAGE_TSA(pt_guarded_by(x))
#define REQUIRES(...) STOWAGE_TSA(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) STOWAGE_TSA(locks_excluded(__VA_ARGS__))
