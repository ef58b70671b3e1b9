#include "pkg/cel/engine.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include "pkg/cel/go/stowage_cel.h"

namespace stowage::cel {

// The bridge's functions, resolved once by Load; the types come from stowage_cel.h so that a
// changed signature fails to compile here rather than at run time.
struct Bridge {
  decltype(&stowage_cel_compile) compile = nullptr;
  decltype(&stowage_cel_device) device = nullptr;
  decltype(&stowage_cel_release) release = nullptr;
  decltype(&stowage_cel_eval) eval = nullptr;
  decltype(&stowage_cel_eval_device) eval_device = nullptr;
};

namespace {

// Value tags of the flat encoding (stowage_cel.h).
enum Tag : uint8_t { kNone = 0, kInt = 1, kBool = 2, kString = 3, kVersion = 4 };

// An error text the bridge malloc'd, freed when it goes out of scope.
struct BridgeError {
  char* text = nullptr;
  BridgeError() = default;
  BridgeError(const BridgeError&) = delete;
  BridgeError& operator=(const BridgeError&) = delete;
  ~BridgeError() { std::free(text); }
  std::string str() const { return text ? std::string(text) : std::string("unknown error"); }
};

// The last evaluation's actual cost on this thread.
thread_local uint64_t last_cost = 0;

void PutU32(std::string& b, uint32_t v) {
  char le[4];
  for (int i = 0; i < 4; ++i) le[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  b.append(le, 4);
}

void PutI64(std::string& b, int64_t v) {
  const auto u = static_cast<uint64_t>(v);
  char le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<char>((u >> (8 * i)) & 0xff);
  b.append(le, 8);
}

void PutStr(std::string& b, std::string_view s) {
  PutU32(b, static_cast<uint32_t>(s.size()));
  b.append(s);
}

// Picks the value as upstream's getAttributeValue does when several are set: int, bool,
// string, version, in that order.
void PutAttribute(std::string& b, const api::DeviceAttribute& a) {
  if (a.int_value) {
    b.push_back(kInt);
    PutI64(b, *a.int_value);
  } else if (a.bool_value) {
    b.push_back(kBool);
    b.push_back(*a.bool_value ? 1 : 0);
  } else if (a.string_value) {
    b.push_back(kString);
    PutStr(b, *a.string_value);
  } else if (a.version_value) {
    b.push_back(kVersion);
    PutStr(b, *a.version_value);
  } else {
    b.push_back(kNone);
  }
}

// Encodes device into b, replacing its contents; b keeps its capacity between calls.
void Encode(const api::Device& device, std::string_view driver, std::string& b) {
  b.clear();
  PutStr(b, driver);
  const auto& multi = device.allow_multiple_allocations;
  b.push_back(!multi ? 0 : (*multi ? 2 : 1));
  PutU32(b, static_cast<uint32_t>(device.attributes.size()));
  for (const auto& [name, attribute] : device.attributes.entries()) {
    PutStr(b, name);
    PutAttribute(b, attribute);
  }
  PutU32(b, static_cast<uint32_t>(device.capacity.size()));
  for (const auto& [name, capacity] : device.capacity.entries()) {
    PutStr(b, name);
    PutStr(b, capacity.value.String());
  }
}

// The library checked at start-up (UseCheckedLibrary); set once before other threads start,
// read-only afterwards. Never destroyed (a plain pointer, not a global with a destructor).
struct CheckedLibrary {
  std::string path;
  int fd = -1;
  Status error;
};
const CheckedLibrary* checked_library = nullptr;

// Loads the bridge at path (through /proc/self/fd/<fd> when fd >= 0) and resolves its functions.
StatusOr<std::shared_ptr<const Bridge>> Open(const std::string& path, int fd) {
  const std::string where = "CEL library " + path + ": ";
  // A name without '/' would be searched for on the library path instead of taken as given.
  if (path.empty() || path[0] != '/') {
    return FailedPreconditionError(where + "not an absolute path");
  }
  const std::string load_path = fd >= 0 ? "/proc/self/fd/" + std::to_string(fd) : path;
  // Never closed: a Go runtime cannot be unloaded.
  void* lib = dlopen(load_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    std::string text = e ? e : "dlopen failed";
    // dlerror names the /proc/self/fd path it was given; the operator wants the real one.
    for (size_t at = text.find(load_path); fd >= 0 && at != std::string::npos;
         at = text.find(load_path, at + path.size())) {
      text.replace(at, load_path.size(), path);
    }
    return FailedPreconditionError(where + text);
  }
  auto bridge = std::make_shared<Bridge>();
  Status missing;
  const auto resolve = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (fn == nullptr && missing.ok()) {
      missing = FailedPreconditionError(where + "no symbol " + name);
    }
  };
  resolve(bridge->compile, "stowage_cel_compile");
  resolve(bridge->device, "stowage_cel_device");
  resolve(bridge->release, "stowage_cel_release");
  resolve(bridge->eval, "stowage_cel_eval");
  resolve(bridge->eval_device, "stowage_cel_eval_device");
  if (!missing.ok()) return missing;
  return std::shared_ptr<const Bridge>(std::move(bridge));
}

}  // namespace

Program::Program(Program&& other) noexcept
    : bridge_(std::move(other.bridge_)), handle_(std::exchange(other.handle_, 0)) {}

Program& Program::operator=(Program&& other) noexcept {
  if (this != &other) {
    if (handle_ != 0) bridge_->release(handle_);
    bridge_ = std::move(other.bridge_);
    handle_ = std::exchange(other.handle_, 0);
  }
  return *this;
}

Program::~Program() {
  if (handle_ != 0) bridge_->release(handle_);
}

StatusOr<bool> Program::Matches(const api::Device& device, std::string_view driver,
                                std::chrono::nanoseconds timeout) const {
  if (handle_ == 0) return FailedPreconditionError("CEL program used after a move");
  // One buffer per thread, reused: most devices encode in a few hundred bytes.
  thread_local std::string buffer;
  Encode(device, driver, buffer);
  BridgeError err;
  uint64_t cost = 0;
  // The bridge reads 0 as "no deadline", so a deadline already passed becomes the shortest one.
  const int64_t timeout_ns = timeout.count() < 0 ? 1 : static_cast<int64_t>(timeout.count());
  const int r = bridge_->eval(handle_, buffer.data(), buffer.size(), STOWAGE_CEL_FLAT, timeout_ns,
                              &cost, &err.text);
  last_cost = cost;
  if (r < 0) return InvalidArgumentError(err.str());
  return r == 1;
}

uint64_t Program::LastCostForTest() { return last_cost; }

Engine::Engine(std::string library_path) : library_path_(std::move(library_path)) {}

Engine::Engine() : Engine(DefaultLibraryPath()) {}

Engine::~Engine() = default;

void Engine::UseCheckedLibrary(std::string path, int fd, Status error) {
  checked_library = new CheckedLibrary{std::move(path), fd, std::move(error)};
}

std::string Engine::DefaultLibraryPath() {
  if (checked_library != nullptr) return checked_library->path;
  if (const char* env = std::getenv("STOWAGE_CEL_LIBRARY"); env != nullptr && *env != '\0') {
    return env;
  }
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  // The binary's directory's parent, spelled without "..", which the start-up checks refuse.
  std::string dir = n > 0 ? std::string(exe, static_cast<size_t>(n)) : std::string("/usr/bin/x");
  dir.resize(dir.rfind('/'));                                            // /usr/bin
  dir.resize(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/'));  // /usr
  return dir + "/lib/stowage/libstowage_cel.so";
}

StatusOr<std::shared_ptr<const Bridge>> Engine::Load() {
  MutexLock l(mu_);
  if (!load_tried_) {
    load_tried_ = true;
    // The process's checked library through its descriptor; any other path as given (tests).
    const bool checked = checked_library != nullptr && checked_library->path == library_path_;
    StatusOr<std::shared_ptr<const Bridge>> opened =
        !checked ? Open(library_path_, -1)
        : checked_library->fd >= 0
            ? Open(library_path_, checked_library->fd)
            : FailedPreconditionError(std::string(checked_library->error.message()));
    if (opened.ok()) {
      bridge_ = *std::move(opened);
    } else {
      load_error_ = opened.status();
    }
  }
  if (!load_error_.ok()) return load_error_;
  return bridge_;
}

StatusOr<Program> Engine::Compile(std::string_view expression) {
  StatusOr<std::shared_ptr<const Bridge>> bridge = Load();
  if (!bridge.ok()) return bridge.status();
  BridgeError err;
  const int64_t handle = (*bridge)->compile(expression.data(), expression.size(), &err.text);
  if (handle == 0) return InvalidArgumentError(err.str());
  return Program(*std::move(bridge), handle);
}

}  // namespace stowage::cel
