// The narrow C interface of stowage's CEL bridge (celeval.go, built as the Go c-shared library
// libstowage_cel.so and loaded with dlopen by pkg/cel/engine.cc).
//
// Handles are > 0; 0 means failure. Error texts are malloc'd by the bridge and released by
// the caller with free(). All functions are safe to call from any thread.
#ifndef STOWAGE_PKG_CEL_GO_STOWAGE_CEL_H_
#define STOWAGE_PKG_CEL_GO_STOWAGE_CEL_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Device encodings accepted by stowage_cel_device and stowage_cel_eval.
//
// STOWAGE_CEL_FLAT, all integers little-endian, str = u32 length + bytes:
//   str driver; u8 allowMultipleAllocations (0 unset, 1 false, 2 true);
//   u32 nattributes; nattributes x { str qualifiedName; u8 tag; value };
//   u32 ncapacities; ncapacities x { str qualifiedName; str quantity };
// where tag/value are 0 none (no value: an attribute with no value set), 1 int (i64), 2 bool
// (u8), 3 string (str), 4 version (str),
// 5 ints (u32 n, n x i64), 6 bools (u32 n, n x u8), 7 strings, 8 versions (u32 n, n x str).
//
// STOWAGE_CEL_JSON: a resource.k8s.io/v1 Device object as served by the apiserver with
// an added "driver" member (the driver of its ResourceSlice).
enum { STOWAGE_CEL_FLAT = 0, STOWAGE_CEL_JSON = 1 };

// Compiles a device selector in the environment the scheduler uses. Returns a program
// handle, or 0 with *err set to upstream's compile error text.
int64_t stowage_cel_compile(const char* expr, size_t n, char** err);

// Decodes a device once for repeated evaluation. Returns a device handle or 0 with *err.
int64_t stowage_cel_device(const char* buf, size_t n, int format, char** err);

// Forgets a program or device handle.
void stowage_cel_release(int64_t handle);

// Evaluates a program against a device given inline or by handle. Returns 1 (selected),
// 0 (not selected) or -1 with *err set to the error upstream's allocator reports after
// "CEL runtime error: " (cost limit, missing key, ...). A timeout_ns > 0 bounds the
// evaluation as the allocator's context deadline does upstream; 0 means none. *cost receives
// the actual cost.
int stowage_cel_eval(int64_t program, const char* buf, size_t n, int format, int64_t timeout_ns,
                     uint64_t* cost, char** err);
int stowage_cel_eval_device(int64_t program, int64_t device, int64_t timeout_ns, uint64_t* cost,
                            char** err);

#ifdef __cplusplus
}
#endif

#endif  // STOWAGE_PKG_CEL_GO_STOWAGE_CEL_H_
