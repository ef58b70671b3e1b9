// The assertion ladder: ASSERT checks internal invariants in debug builds only; RELEASE_ASSERT
// checks "cannot happen" conditions in every build and aborts with a message. Anything that
// comes from the network or the API server is untrusted input and is handled, never asserted.
#pragma once

#include <cstdio>
#include <cstdlib>

#define RELEASE_ASSERT(cond, msg)                                                                  \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "assertion failed at %s:%d: %s: %s\n", __FILE__, __LINE__, #cond, msg); \
      std::abort();                                                                                \
    }                                                                                              \
  } while (0)

#ifdef NDEBUG
#define ASSERT(cond) ((void)0)
#else
#define ASSERT(cond) RELEASE_ASSERT(cond, "debug invariant")
#endif
