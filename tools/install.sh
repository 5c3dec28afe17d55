#!/bin/sh
# tools/install.sh: install what `ninja` built into the directories ./configure
# wrote to build/config.ninja (prefix, bindir, libdir, includedir).  POSIX sh.
# `ninja install` runs it after building; tests/test_install.c runs it directly.
#
#   sh tools/install.sh [--strip]     --strip: strip the programs (ninja install-strip)
#
# Environment:
#   DESTDIR   a staging root put before every path (packaging: the tree under
#             it is then moved into place, or packed)
#   PREFIX    instead of the configured prefix; bindir, libdir and includedir
#             that were under the configured prefix move with it
#   BINDIR, LIBDIR, INCLUDEDIR   each instead of its directory
#
# What goes where:
#   INCLUDEDIR/gpublob.h
#   INCLUDEDIR/gpublob_mlir.h  the calls that take the caller's MLIR objects (libgpublob.a)
#   LIBDIR/libgpublob.so.1    the shared library: LLVM, lld and MLIR inside, gpublob.h's
#   LIBDIR/libgpublob.so      calls alone exported (a link to libgpublob.so.1)
#   LIBDIR/libgpublob.a       the static library (and the MLIR pass, the calls that take
#                             the caller's MLIR objects)
#   BINDIR/gpublob            the CLI's LLVM-free front: it answers cache hits and
#   BINDIR/gpublob-compiler   runs this, found beside itself (/proc/self/exe), for
#                             anything else: the pair works wherever it is, together
#   BINDIR/gpublob-front      the same front linked dynamically: the static one hands it
#                             the calls with an http:// remote tier (it loads libcurl)
#   LIBDIR/pkgconfig/gpublob.pc         -lgpublob, the shared library
#   LIBDIR/pkgconfig/gpublob-static.pc  libgpublob.a and what it needs
#   LIBDIR/cmake/gpublob/gpublobConfig.cmake, gpublobConfigVersion.cmake
#                             (IMPORTED targets gpublob::gpublob, shared, and gpublob::static,
#                             and gpublob::cli, BINDIR/gpublob)
#   LIBDIR/cmake/gpublob/gpublobKernels.cmake, gpublobEmbed.cmake
#                             gpublob_add_kernels (cmake/: kernels compiled at build time)
# The .pc and CMake files find the library and header relative to themselves
# (${pcfiledir}, CMAKE_CURRENT_LIST_DIR), so a tree installed under DESTDIR or
# another PREFIX works wherever it is moved as a whole.  Their link flags are
# the configuration's (build/config.ninja's user_libs) for the static library:
# static LLVM and lld, and MLIR's archives when the library was built with MLIR.  Each file is copied beside
# its destination and renamed over it: a running gpublob is never written into.
set -eu
cd "$(dirname "$0")/.."

die() { printf 'install: error: %s\n' "$*" >&2; exit 1; }
say() { printf '%s\n' "$*"; }

strip=0
for arg in "$@"; do
  case "$arg" in
    --strip) strip=1 ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) die "unknown option '$arg' (see --help)" ;;
  esac
done

cfg=build/config.ninja
[ -f "$cfg" ] || die "no $cfg: run ./configure, then ninja"
get() { sed -n "s/^$1 = //p" "$cfg" | tail -n 1; }
c_prefix=$(get prefix)
[ -n "$c_prefix" ] || die "$cfg has no prefix: run ./configure again"
for f in gpublob.h gpublob_mlir.h cmake/gpublobKernels.cmake cmake/gpublobEmbed.cmake build/libgpublob.a build/libgpublob.so.1 build/gpublob build/gpublob-front build/gpublob-compiler; do
  [ -f "$f" ] || die "$f is missing: run ninja first (ninja install does)"
done
version=$(sed -n 's/^#define GPUBLOB_VERSION_STRING "\(.*\)"$/\1/p' gpublob.h)
case "$version" in
  [0-9]*.[0-9]*) ;;
  *) die "no GPUBLOB_VERSION_STRING \"MAJOR.MINOR.PATCH\" in gpublob.h" ;;
esac
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
mlir=$(get mlir)
shared_llvm=$(get shared_llvm)
user_cflags=$(get user_cflags)
user_libs=$(get user_libs)

# A configured directory under the configured prefix moves with PREFIX.
norm() { # strip trailing slashes ("/" stays)
  d=$1
  while :; do case "$d" in ?*/) d=${d%/} ;; *) break ;; esac; done
  printf '%s' "$d"
}
prefix=$(norm "${PREFIX:-$c_prefix}")
moved() { # configured dir -> dir
  case "$1" in
    "$c_prefix") printf '%s' "$prefix" ;;
    "${c_prefix%/}"/*) printf '%s/%s' "${prefix%/}" "${1#"${c_prefix%/}"/}" ;;
    *) printf '%s' "$1" ;;
  esac
}
bindir=$(norm "${BINDIR:-$(moved "$(get bindir)")}")
libdir=$(norm "${LIBDIR:-$(moved "$(get libdir)")}")
includedir=$(norm "${INCLUDEDIR:-$(moved "$(get includedir)")}")
for d in "$prefix" "$bindir" "$libdir" "$includedir"; do
  case "$d" in /*) ;; *) die "'$d': not an absolute path" ;; esac
  case "$d" in *[!A-Za-z0-9/._+@%,=:-]*) die "'$d': only letters, digits and / . _ + @ % , = : - in an install path" ;; esac
  case "/$d/" in */./*|*/../*) die "'$d': . or .. in an install path" ;; esac
done
dest=${DESTDIR:-}
dest=${dest%/}

# relpath FROM TO: TO relative to the directory FROM (both absolute, normalised).
relpath() {
  from=$1 up=""
  while :; do
    case "$2/" in "${from%/}"/*) break ;; esac
    from=${from%/*}
    up="../$up"
  done
  rest=${2#"${from%/}"}
  rest=${rest#/}
  r="$up$rest"
  r=${r%/}
  printf '%s' "${r:-.}"
}

# A file half written when something fails goes.
tmp=""
trap 'rm -f "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# put SRC DIR NAME MODE: copy beside, then rename into place.
put() {
  mkdir -p "$dest$2"
  tmp="$dest$2/.$3.install-$$"
  cp "$1" "$tmp" || { rm -f "$tmp"; die "cannot write $dest$2/$3"; }
  if [ "$strip" = 1 ] && [ "$4" = 755 ]; then strip "$tmp" || { rm -f "$tmp"; die "strip $3 failed"; }; fi
  chmod "$4" "$tmp"
  mv -f "$tmp" "$dest$2/$3" || { rm -f "$tmp"; die "cannot rename into $dest$2/$3"; }
  tmp=""
  say "install: $dest$2/$3"
}

# write DIR NAME: standard input to DIR/NAME, the same way.
write() {
  mkdir -p "$dest$1"
  tmp="$dest$1/.$2.install-$$"
  cat > "$tmp" || { rm -f "$tmp"; die "cannot write $dest$1/$2"; }
  chmod 644 "$tmp"
  mv -f "$tmp" "$dest$1/$2" || { rm -f "$tmp"; die "cannot rename into $dest$1/$2"; }
  tmp=""
  say "install: $dest$1/$2"
}

put gpublob.h "$includedir" gpublob.h 644
put gpublob_mlir.h "$includedir" gpublob_mlir.h 644
put build/libgpublob.a "$libdir" libgpublob.a 644
put build/libgpublob.so.1 "$libdir" libgpublob.so.1 755
# the link name, made beside and renamed over, as the files are
mkdir -p "$dest$libdir"
tmp="$dest$libdir/.libgpublob.so.install-$$"
ln -sf libgpublob.so.1 "$tmp" && mv -f "$tmp" "$dest$libdir/libgpublob.so" || { rm -f "$tmp"; die "cannot link $dest$libdir/libgpublob.so"; }
tmp=""
say "install: $dest$libdir/libgpublob.so -> libgpublob.so.1"
# The compiler first: a front installed before it would start an older one.
put build/gpublob-compiler "$bindir" gpublob-compiler 755
put build/gpublob-front "$bindir" gpublob-front 755
put build/gpublob "$bindir" gpublob 755

what="LLVM 22 $( [ "$shared_llvm" = 1 ] && echo shared || echo static), $( [ "$mlir" = yes ] && echo 'with MLIR' || echo 'without MLIR')"

# pkg-config: gpublob is the shared library (-lgpublob: LLVM inside, nothing more to
# link); its --static line adds what the static library needs.  gpublob-static links
# libgpublob.a by its path, for a program that wants no shared gpublob.
pc_dir=$libdir/pkgconfig
pc_head() {
  cat <<EOF
prefix=\${pcfiledir}/$(relpath "$pc_dir" "$prefix")
libdir=\${pcfiledir}/..
includedir=\${pcfiledir}/$(relpath "$pc_dir" "$includedir")
bindir=\${pcfiledir}/$(relpath "$pc_dir" "$bindir")
mlir=$mlir
shared_llvm=$shared_llvm

Version: $version
EOF
}
{
  echo "# gpublob.pc: gpublob $version ($what), written by tools/install.sh."
  echo "# The shared library: cc prog.c \$(pkg-config --cflags --libs gpublob)"
  pc_head
  cat <<EOF
Name: gpublob
Description: GPU kernel modules (LLVM IR, MLIR) to GPU blobs: PTX, cubin, fatbin, hsaco, SPIR-V
Cflags: -I\${includedir}
Libs: -L\${libdir} -lgpublob
Libs.private: $user_libs
EOF
} | write "$pc_dir" gpublob.pc
{
  echo "# gpublob-static.pc: gpublob $version ($what), written by tools/install.sh."
  echo "# The static library: cc prog.c \$(pkg-config --cflags --libs gpublob-static)"
  pc_head
  cat <<EOF
Name: gpublob-static
Description: gpublob, the static library with its whole link (LLVM, lld, MLIR: archives)
Cflags: -I\${includedir}${user_cflags:+ $user_cflags}
Libs: \${libdir}/libgpublob.a $user_libs
EOF
} | write "$pc_dir" gpublob-static.pc

# CMake: gpublob::gpublob, the shared library (IMPORTED SHARED, nothing more to
# link), and gpublob::static, an IMPORTED static library whose interface carries the
# whole link (a C-only project has no C++ linker to add libstdc++); -L directories
# go to INTERFACE_LINK_DIRECTORIES, everything else stays in order.
cm_dir=$libdir/cmake/gpublob
links="" linkdirs=""
for w in $user_libs; do
  case "$w" in
    -L*) linkdirs="$linkdirs
  ${w#-L}" ;;
    *) links="$links
  $w" ;;
  esac
done
incdirs=""
for w in $user_cflags; do
  case "$w" in -I*) incdirs="$incdirs;${w#-I}" ;; esac
done
write "$cm_dir" gpublobConfig.cmake <<EOF
# gpublobConfig.cmake: gpublob $version ($what), written by tools/install.sh.
#   find_package(gpublob $major.$minor REQUIRED)
#   target_link_libraries(app PRIVATE gpublob::gpublob)
# gpublob::gpublob is libgpublob.so.1: LLVM$( [ "$mlir" = yes ] && echo ', MLIR') and lld inside, its own calls alone
# exported, so a program with an LLVM of its own links it too.  gpublob::static is
# libgpublob.a with its whole link (LLVM, libstdc++, xxHash, pthread, ...): a C-only
# project (project(x C)) links either as it is.  gpublob::cli is the CLI
# (gpublob_EXECUTABLE), and gpublob_add_kernels(NAME SOURCES ... TARGETS ...)
# compiles kernels with it at build time into an OBJECT library NAME
# (gpublobKernels.cmake says how).
# gpublob_MLIR is ON when the library was built with MLIR (otherwise its MLIR
# calls return GPUBLOB_NOMLIR).
if(TARGET gpublob::gpublob)
  return()
endif()
get_filename_component(_gpublob_libdir "\${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
get_filename_component(_gpublob_includedir "\${_gpublob_libdir}/$(relpath "$libdir" "$includedir")" ABSOLUTE)
if(NOT EXISTS "\${_gpublob_libdir}/libgpublob.a" OR NOT EXISTS "\${_gpublob_libdir}/libgpublob.so.1" OR
   NOT EXISTS "\${_gpublob_includedir}/gpublob.h")
  set(gpublob_FOUND FALSE)
  set(gpublob_NOT_FOUND_MESSAGE "no \${_gpublob_libdir}/libgpublob.a, libgpublob.so.1 or \${_gpublob_includedir}/gpublob.h")
  return()
endif()
add_library(gpublob::gpublob SHARED IMPORTED)
set_target_properties(gpublob::gpublob PROPERTIES
  IMPORTED_LOCATION "\${_gpublob_libdir}/libgpublob.so.1"
  IMPORTED_SONAME "libgpublob.so.1"
  INTERFACE_INCLUDE_DIRECTORIES "\${_gpublob_includedir}")
set(_gpublob_link_dirs$linkdirs)
set(_gpublob_link$links)
add_library(gpublob::static STATIC IMPORTED)
set_target_properties(gpublob::static PROPERTIES
  IMPORTED_LOCATION "\${_gpublob_libdir}/libgpublob.a"
  IMPORTED_LINK_INTERFACE_LANGUAGES C
  INTERFACE_INCLUDE_DIRECTORIES "\${_gpublob_includedir}$incdirs"
  INTERFACE_LINK_DIRECTORIES "\${_gpublob_link_dirs}"
  INTERFACE_LINK_LIBRARIES "\${_gpublob_link}")
get_filename_component(_gpublob_bindir "\${_gpublob_libdir}/$(relpath "$libdir" "$bindir")" ABSOLUTE)
add_executable(gpublob::cli IMPORTED)
set_target_properties(gpublob::cli PROPERTIES IMPORTED_LOCATION "\${_gpublob_bindir}/gpublob")
set(gpublob_EXECUTABLE "\${_gpublob_bindir}/gpublob")
include("\${CMAKE_CURRENT_LIST_DIR}/gpublobKernels.cmake")
set(gpublob_MLIR $( [ "$mlir" = yes ] && echo ON || echo OFF))
set(gpublob_INCLUDE_DIRS "\${_gpublob_includedir}$incdirs")
set(gpublob_LIBRARIES gpublob::gpublob)
unset(_gpublob_bindir)
unset(_gpublob_libdir)
unset(_gpublob_includedir)
unset(_gpublob_link_dirs)
unset(_gpublob_link)
EOF

put cmake/gpublobKernels.cmake "$cm_dir" gpublobKernels.cmake 644
put cmake/gpublobEmbed.cmake "$cm_dir" gpublobEmbed.cmake 644

write "$cm_dir" gpublobConfigVersion.cmake <<EOF
# gpublobConfigVersion.cmake: gpublob $version, written by tools/install.sh.
# Compatible with a request of the same major version at or below $version; while
# the major version is 0, of the same minor version too (before 1.0 a minor
# version may change the API).  Ranges (find_package(gpublob 0.1...0.3)) too.
set(PACKAGE_VERSION "$version")
set(PACKAGE_VERSION_COMPATIBLE FALSE)
set(PACKAGE_VERSION_EXACT FALSE)
if(PACKAGE_FIND_VERSION_RANGE)
  set(_gpublob_want "\${PACKAGE_FIND_VERSION_MIN}")
else()
  set(_gpublob_want "\${PACKAGE_FIND_VERSION}")
endif()
if(NOT _gpublob_want)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
else()
  string(REGEX MATCH "^([0-9]+)(\\\\.([0-9]+))?" _gpublob_m "\${_gpublob_want}")
  set(_gpublob_wmajor "\${CMAKE_MATCH_1}")
  set(_gpublob_wminor "\${CMAKE_MATCH_3}")
  if(NOT _gpublob_wminor)
    set(_gpublob_wminor 0)
  endif()
  if(PACKAGE_VERSION VERSION_LESS _gpublob_want)
  elseif(NOT _gpublob_wmajor EQUAL $major)
  elseif($major EQUAL 0 AND NOT _gpublob_wminor EQUAL $minor)
  else()
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
  if(PACKAGE_FIND_VERSION_RANGE AND PACKAGE_VERSION_COMPATIBLE)
    if(PACKAGE_FIND_VERSION_RANGE_MIN STREQUAL "EXCLUDE" AND PACKAGE_VERSION VERSION_EQUAL PACKAGE_FIND_VERSION_MIN)
      set(PACKAGE_VERSION_COMPATIBLE FALSE)
    endif()
    if(PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE" AND PACKAGE_VERSION VERSION_GREATER PACKAGE_FIND_VERSION_MAX)
      set(PACKAGE_VERSION_COMPATIBLE FALSE)
    elseif(PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE" AND NOT PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MAX)
      set(PACKAGE_VERSION_COMPATIBLE FALSE)
    endif()
  endif()
  if(NOT PACKAGE_FIND_VERSION_RANGE AND PACKAGE_VERSION VERSION_EQUAL PACKAGE_FIND_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
# A 64-bit library.
if(CMAKE_SIZEOF_VOID_P AND NOT CMAKE_SIZEOF_VOID_P EQUAL 8)
  set(PACKAGE_VERSION "\${PACKAGE_VERSION} (64-bit)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
endif()
unset(_gpublob_want)
unset(_gpublob_m)
unset(_gpublob_wmajor)
unset(_gpublob_wminor)
EOF
say "install: gpublob $version ($what) in ${dest:+$dest (DESTDIR) + }$prefix"
