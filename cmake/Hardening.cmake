# Warnings everywhere; the compiler-hardening set (OpenSSF guide, GCC 12) for every build that
# is not a sanitizer or fuzz build, each flag guarded by a support check.
include(CheckCXXCompilerFlag)
include(CheckLinkerFlag)
include(CheckPIESupported)

add_compile_options(-Wall -Wextra -Wformat=2 -Wimplicit-fallthrough -Werror=format-security
                    -Wno-missing-field-initializers)
# Under clang (build-clang, scripts/test), GUARDED_BY/REQUIRES on stowage::Mutex are checked and a
# violation fails the build; GCC ignores the annotations.
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_compile_options(-Wthread-safety -Werror=thread-safety)
endif()

if(STOWAGE_HARDENING)
  check_pie_supported()
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  set(_stowage_cxx_flags
      -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3 -D_GLIBCXX_ASSERTIONS -fstack-clash-protection
      -fstack-protector-strong -fcf-protection=full -fno-delete-null-pointer-checks
      -fno-strict-overflow -fno-strict-aliasing -ftrivial-auto-var-init=zero -Wtrampolines)
  foreach(flag IN LISTS _stowage_cxx_flags)
    string(MAKE_C_IDENTIFIER "HAVE_CXX${flag}" var)
    check_cxx_compiler_flag(${flag} ${var})
    if(${var})
      add_compile_options(${flag})
    endif()
  endforeach()
  set(_stowage_link_flags -Wl,-z,nodlopen -Wl,-z,noexecstack -Wl,-z,relro -Wl,-z,now
      -Wl,--as-needed)
  foreach(flag IN LISTS _stowage_link_flags)
    string(MAKE_C_IDENTIFIER "HAVE_LD${flag}" var)
    check_linker_flag(CXX ${flag} ${var})
    if(${var} AND flag STREQUAL "-Wl,-z,nodlopen")
      # Programs only: a plugin library (a MODULE) marked nodlopen could never be loaded.
      add_link_options($<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:${flag}>)
    elseif(${var})
      add_link_options(${flag})
    endif()
  endforeach()
endif()
