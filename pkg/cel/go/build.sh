#!/bin/sh
# Builds the measurement tools of docs/cel.md outside the main build: the Go c-archive and the
# probes linked with it (celprobe, the evidence against c-archive), and optionally the c-shared
# library with celdlopen. The library stowage uses is built by CMake (pkg/cel/CMakeLists.txt).
#
#   pkg/cel/go/build.sh OUTDIR [--shared]
#
# Needs Go and the modules of go.mod (from the module cache or the Go module proxy),
# g++ and libseccomp. Not run by CI.
set -eu
out=${1:?usage: build.sh OUTDIR [--shared]}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$here"
nice -n 10 go build -buildmode=c-archive -trimpath -o "$out/libstowage_cel.a" .
for variant in "" _early; do
  define=""
  [ "$variant" = _early ] && define=-DCELPROBE_EARLY_BLOCK
  nice -n 10 g++ -std=c++20 -O2 $define -I"$root" probe/celprobe.cc "$out/libstowage_cel.a" \
    -lseccomp -lpthread -o "$out/celprobe$variant"
done
nice -n 10 g++ -std=c++20 -O2 -DCELPROBE_NO_GO -I"$root" probe/celprobe.cc -lseccomp -lpthread \
  -o "$out/celprobe_nogo"
if [ "${2:-}" = --shared ]; then
  nice -n 10 go build -buildmode=c-shared -trimpath -o "$out/libstowage_cel.so" .
  nice -n 10 g++ -std=c++20 -O2 probe/celdlopen.cc -ldl -lseccomp -lpthread -o "$out/celdlopen"
fi
# The seccomp allow-list of pkg/sandbox/sandbox.cc, one name a line, for `celprobe seccomp`.
sed -n '/kAllowedSyscalls\[\] = {/,/^};/p' "$root/pkg/sandbox/sandbox.cc" |
  grep -o '"[a-z0-9_]*"' | tr -d '"' | sort > "$out/allowed-syscalls.txt"
echo "built in $out"
