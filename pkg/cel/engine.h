// The CEL engine for DRA device selectors: upstream's own cel-go and
// k8s.io/dynamic-resource-allocation/cel environment, at the versions kube-scheduler v1.37.2 pins,
// reached through stowage's Go bridge libstowage_cel.so (pkg/cel/go, docs/cel.md).
//
// The bridge is a Go c-shared library, so the Go runtime and its threads start when it is
// loaded. Engine loads it with dlopen on the first Compile, never before: once stowage has
// entered its sandbox, every Go thread inherits the seccomp filter, the dropped capabilities,
// Landlock and the signal mask of the thread that loaded it. A Go runtime cannot be unloaded,
// so the library stays mapped until the process exits, whatever happens to the Engine.
//
// Programs keep the compiled selector on the Go side, named by a handle that the Program
// releases when destroyed. Matches hands the device over in the bridge's flat encoding
// (stowage_cel.h), built in a thread-local buffer, so the hot path makes no dlsym call and no
// allocation once the buffer has grown.
//
// Thread-safety: Engine and Program are safe to use from any number of threads at once. Compile
// takes the Engine's lock to load or find the library (compiling costs far more than the lock);
// Matches takes none.
// Invariants: a Program is valid as long as it exists, even after its Engine is gone (it shares
// the loaded functions); a failed load is kept and reported again by every later Compile, so a
// missing library costs one dlopen, not one per selector.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "stowage/api/types.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::cel {

// The five functions of the loaded bridge; internal to engine.cc.
struct Bridge;

// A compiled device selector. Move-only; releases its Go-side program when destroyed.
class Program {
 public:
  Program(Program&& other) noexcept;
  Program& operator=(Program&& other) noexcept;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program();

  // Whether the selector selects device, a device of a ResourceSlice of driver (which names the
  // domain of attributes and capacities given without one, and is device.driver). An error
  // carries upstream's runtime error text, as the allocator reports it after
  // "CEL runtime error: " (a missing key, a bad version, "operation cancelled: actual cost
  // limit exceeded"). A timeout > 0 stops the evaluation as the allocator's context deadline
  // does upstream (cel-go checks it every 100 comprehension iterations); zero means no deadline,
  // a negative one counts as already passed. A moved-from Program only returns an error.
  StatusOr<bool> Matches(const api::Device& device, std::string_view driver,
                         std::chrono::nanoseconds timeout = std::chrono::nanoseconds(0)) const;

  // The actual cost of the last evaluation by this thread, of any program (cel-go's
  // EvalDetails.ActualCost): what the cost limit of 1,000,000 is compared with.
  static uint64_t LastCostForTest();

 private:
  friend class Engine;
  Program(std::shared_ptr<const Bridge> bridge, int64_t handle)
      : bridge_(std::move(bridge)), handle_(handle) {}

  std::shared_ptr<const Bridge> bridge_;
  int64_t handle_ = 0;  // 0 once moved from
};

// Compiles device selectors with the bridge at one path, which it loads at the first Compile.
// In stowage, the process checks and opens the library before the sandbox (UseCheckedLibrary);
// an Engine over DefaultLibraryPath() then loads that very file.
class Engine {
 public:
  // Engine over the bridge at library_path, an absolute path; nothing is loaded yet.
  explicit Engine(std::string library_path);
  // Engine over DefaultLibraryPath().
  Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  ~Engine();

  // The bridge this process uses: the path given to UseCheckedLibrary when stowage checked one at
  // start-up; else $STOWAGE_CEL_LIBRARY when set (tests); else
  // <parent of the directory of /proc/self/exe>/lib/stowage/libstowage_cel.so (/usr/bin/stowage:
  // /usr/lib/stowage/; build/cmd/stowage/stowage: build/cmd/lib/stowage/, where the build
  // copies it).
  static std::string DefaultLibraryPath();

  // Start-up wiring, before the sandbox is entered and before any Engine compiles: path is the
  // bridge this process uses, fd a descriptor of it opened after its checks (owner, mode, no
  // link), which the process keeps for good. An Engine over that path then loads the library
  // through /proc/self/fd/<fd>, so the checked file is the loaded one; when the checks failed
  // (fd < 0), its Compile reports error. Call at most once, before any other thread starts.
  static void UseCheckedLibrary(std::string path, int fd, Status error);

  // Compiles a device selector in the environment kube-scheduler uses (StoredExpressions, no
  // cost estimation, the runtime cost limit of resource.k8s.io). Errors: upstream's compile
  // error text as InvalidArgument ("compilation failed: ERROR: <input>:1:17: Syntax error: ...",
  // "must evaluate to bool or the unknown type, not string"); FailedPrecondition naming the
  // path when the bridge cannot be loaded.
  StatusOr<Program> Compile(std::string_view expression);

  const std::string& library_path() const { return library_path_; }

 private:
  // Loads the bridge on first use; later calls return the same result.
  StatusOr<std::shared_ptr<const Bridge>> Load();

  const std::string library_path_;
  Mutex mu_;
  bool load_tried_ GUARDED_BY(mu_) = false;
  std::shared_ptr<const Bridge> bridge_ GUARDED_BY(mu_);
  Status load_error_ GUARDED_BY(mu_);
};

}  // namespace stowage::cel
