# gpublobKernels.cmake: gpublob_add_kernels, kernels compiled by the installed
# gpublob CLI at build time and linked into a program.  gpublobConfig.cmake
# includes it (tools/install.sh installs both beside each other, with
# gpublobEmbed.cmake, the script each compile's second step runs).
#
#   gpublob_add_kernels(NAME
#     SOURCES a.ll b.mlir ...                    kernel modules (LLVM IR or MLIR)
#     TARGETS nvptx:sm_90 amdgcn:gfx90a,gfx942   gpublob's -t, one word each
#     [FORMAT bin|pack|offload]                  default bin: a blob per (target, chip)
#     [OPTIONS --fast-math -O2 ...])             more flags for every compile
#   target_link_libraries(app PRIVATE NAME)
#   #include "NAME.h"    // NAME_STEM_blobs[], NAME_STEM_blob_count (STEM: a source's);
#                        // FORMAT offload: NAME_STEM_offload[], NAME_STEM_offload_size too
#
# NAME is an OBJECT library (C: the project enables C).  Each source is one
# command (add_custom_command): gpublob -t ... -f FORMAT OPTIONS --emit-c
# ID.h --depfile ID.d -o ID/{stem}.{target}.{chip}{suffix} SOURCE (ID: NAME_STEM
# as a C identifier), then
# gpublobEmbed.cmake, which writes ID.c: the table ID_blobs[] of the
# header's arrays, each with its target and chip.  The command reruns when the
# source, the gpublob programs or a file of the depfile (-l files, the blob
# tool, the pack tool, the device libraries) changes; another source's command
# does not.  DEPFILE needs CMake 3.20 (earlier ones rerun on the source and the
# programs alone).  The outputs are under CMAKE_CURRENT_BINARY_DIR/gpublob/NAME/:
# include/NAME.h (the table's declarations, on NAME's include path), and per
# source ID.h, ID.c, ID.d and the blob files in ID/.
#
# FORMAT offload (gpublob -f offload, one container per source) comes as a host
# object instead of a header: gpublob -f offload -o ID.offload --emit-object ID.o
# writes the container into ID.o's allocated .llvm.offloading section, with the
# symbols ID_offload (its first byte) and ID_offload_size (a u64), which NAME.h
# declares.  The object is linked by its path into whatever links NAME (NAME's
# INTERFACE link: an OBJECT library's objects are its compiled sources alone), so
# llvm-objdump --offloading and clang-linker-wrapper find the container in the
# program, and a plain cc link keeps it.  gpublobEmbed.cmake's object mode then
# writes ID.c, the one-row table ID_blobs[] of the container (its size read from
# ID.offload).  The depfile's target is ID.o.

if(POLICY CMP0116)
  cmake_policy(PUSH)
  cmake_policy(SET CMP0116 NEW) # the depfile's paths are made relative to the build (Ninja)
endif()

set_property(GLOBAL PROPERTY gpublob_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/gpublobEmbed.cmake")

function(gpublob_add_kernels name)
  cmake_parse_arguments(PARSE_ARGV 1 _gk "" "FORMAT" "SOURCES;TARGETS;OPTIONS")
  if(_gk_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gpublob_add_kernels(${name}): unknown arguments: ${_gk_UNPARSED_ARGUMENTS} "
                        "(SOURCES, TARGETS, FORMAT, OPTIONS)")
  endif()
  if(NOT _gk_SOURCES OR NOT _gk_TARGETS)
    message(FATAL_ERROR "gpublob_add_kernels(${name}): give SOURCES and TARGETS (nvptx:sm_90 amdgcn:gfx90a,gfx942)")
  endif()
  if(NOT _gk_FORMAT)
    set(_gk_FORMAT bin)
  endif()
  if(NOT _gk_FORMAT MATCHES "^(bin|pack|offload)$")
    message(FATAL_ERROR "gpublob_add_kernels(${name}): FORMAT ${_gk_FORMAT}: use bin, pack or offload")
  endif()
  get_property(_langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST _langs)
    message(FATAL_ERROR "gpublob_add_kernels(${name}): the kernels' table is C: enable it (project(x C CXX))")
  endif()
  if(NOT TARGET gpublob::cli)
    message(FATAL_ERROR "gpublob_add_kernels(${name}): no gpublob::cli (find_package(gpublob) first)")
  endif()
  get_target_property(_exe gpublob::cli IMPORTED_LOCATION)
  get_filename_component(_bindir "${_exe}" DIRECTORY)
  if(NOT EXISTS "${_exe}" OR NOT EXISTS "${_bindir}/gpublob-compiler")
    message(FATAL_ERROR "gpublob_add_kernels(${name}): no ${_exe} and gpublob-compiler beside it")
  endif()
  get_property(_embed GLOBAL PROPERTY gpublob_EMBED_SCRIPT)

  set(_dir "${CMAKE_CURRENT_BINARY_DIR}/gpublob/${name}")
  set(_targets "")
  foreach(_t IN LISTS _gk_TARGETS)
    list(APPEND _targets -t "${_t}")
  endforeach()
  string(MAKE_C_IDENTIFIER "${name}" _guard)
  string(TOUPPER "${_guard}" _guard)
  set(_decls "")
  set(_ids "")
  set(_wrappers "")
  set(_objects "")
  foreach(_s IN LISTS _gk_SOURCES)
    get_filename_component(_src "${_s}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(_stem "${_s}" NAME_WLE)
    string(MAKE_C_IDENTIFIER "${name}_${_stem}" _id)
    if(_id IN_LIST _ids)
      message(FATAL_ERROR "gpublob_add_kernels(${name}): two sources have the stem ${_id} (${_s}): rename one")
    endif()
    list(APPEND _ids "${_id}")
    set(_depfile_args "")
    set(_depfile_cmd "")
    if(NOT CMAKE_VERSION VERSION_LESS 3.20)
      set(_depfile_args --depfile "${_dir}/${_id}.d")
      set(_depfile_cmd DEPFILE "${_dir}/${_id}.d")
    endif()
    if(_gk_FORMAT STREQUAL "offload") # the container in a host object (--emit-object)
      set(_made "${_dir}/${_id}.o")
      set(_emit -o "${_dir}/${_id}.offload" --emit-object "${_dir}/${_id}.o")
      set(_embed_args "-DCONTAINER=${_dir}/${_id}.offload")
      list(APPEND _objects "${_dir}/${_id}.o")
      string(APPEND _decls "extern const unsigned char ${_id}_offload[]; /* ${_s}: the container */\n"
                           "extern const unsigned long long ${_id}_offload_size;\n")
    else()
      set(_made "${_dir}/${_id}.h")
      set(_emit -o "${_dir}/${_id}/{stem}.{target}.{chip}{suffix}" --emit-c "${_dir}/${_id}.h")
      set(_embed_args "-DHEADER=${_dir}/${_id}.h")
    endif()
    add_custom_command(
      OUTPUT ${_made} "${_dir}/${_id}.c"
      COMMAND "${_exe}" ${_targets} -f "${_gk_FORMAT}" ${_gk_OPTIONS} ${_emit} ${_depfile_args} -- "${_src}"
      COMMAND "${CMAKE_COMMAND}" ${_embed_args} "-DOUT=${_dir}/${_id}.c" "-DID=${_id}"
              "-DINDEX=${name}.h" -P "${_embed}"
      DEPENDS "${_src}" "${_exe}" "${_bindir}/gpublob-compiler" "${_embed}"
      ${_depfile_cmd}
      COMMENT "gpublob ${name}: ${_s} (${_gk_FORMAT}: ${_gk_TARGETS})"
      VERBATIM)
    list(APPEND _wrappers "${_dir}/${_id}.c")
    string(APPEND _decls "extern const gpublob_embedded_blob ${_id}_blobs[]; /* ${_s} */\n"
                         "extern const size_t ${_id}_blob_count;\n")
  endforeach()

  # include/NAME.h: written at configure time, and only when it changes.
  file(WRITE "${_dir}/include/${name}.h.new"
       "/* ${name}.h: made by gpublob_add_kernels(${name}).  Each source's blobs, compiled by\n"
       "** gpublob at build time (FORMAT ${_gk_FORMAT}; ${_gk_TARGETS}): ${name}_STEM_blobs[], ${name}_STEM_blob_count. */\n"
       "#ifndef GPUBLOB_KERNELS_${_guard}_H\n#define GPUBLOB_KERNELS_${_guard}_H\n#include <stddef.h>\n"
       "#ifndef GPUBLOB_EMBEDDED_BLOB\n#define GPUBLOB_EMBEDDED_BLOB\n"
       "/* One output of gpublob: its target and chip (a pack's: the chips, comma-separated;\n"
       "** a container's: \"\"), suffix (\".hsaco\") and bytes. */\n"
       "typedef struct gpublob_embedded_blob {\n"
       "  const char *target, *chip, *suffix;\n  const unsigned char *data;\n  size_t size;\n"
       "} gpublob_embedded_blob;\n#endif\n"
       "#ifdef __cplusplus\nextern \"C\" {\n#endif\n${_decls}"
       "#ifdef __cplusplus\n}\n#endif\n#endif\n")
  configure_file("${_dir}/include/${name}.h.new" "${_dir}/include/${name}.h" COPYONLY)
  file(REMOVE "${_dir}/include/${name}.h.new")

  add_library(${name} OBJECT ${_wrappers})
  # FORMAT offload: each host object goes on the link line of whatever links NAME (an
  # OBJECT library's own objects are its compiled sources alone); the custom command
  # that writes it is NAME's, so it is made before that link
  if(_objects)
    target_link_libraries(${name} INTERFACE ${_objects})
  endif()
  target_include_directories(${name} PUBLIC "${_dir}/include")
endfunction()

if(POLICY CMP0116)
  cmake_policy(POP)
endif()
