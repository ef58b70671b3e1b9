# Reproducible builds (docs/install-packages.md, "Reproducible builds"): two clean builds of one
# commit in different directories give the same bytes. The paths the compiler would embed
# (__FILE__ in log call sites and assertions; the source and build directories in debug
# information when a build adds -g) are written relative: the source tree as ".", the build tree
# as "build". GCC applies the last matching map, so a build directory inside the source tree
# (build/) comes out as "build/..." too. The log's caller field and --vmodule look only at the
# last directory and the file name (pkg/common/logging.cc), so they read as before.
# Nothing else varies with the directory or the time: no __DATE__/__TIME__ anywhere, static
# archives from Debian's deterministic ar, a linker build ID that hashes the output, and the CEL
# bridge built by Go with -trimpath (pkg/cel/CMakeLists.txt). tests/packaging/check-reproducible
# checks it by building twice.
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-ffile-prefix-map=/a=b HAVE_CXX_FILE_PREFIX_MAP)
if(HAVE_CXX_FILE_PREFIX_MAP)
  add_compile_options(-ffile-prefix-map=${CMAKE_SOURCE_DIR}=.
                      -ffile-prefix-map=${CMAKE_BINARY_DIR}=build)
endif()
