# gpublobEmbed.cmake: the second step of each gpublob_add_kernels compile
# (gpublobKernels.cmake), run as cmake -DHEADER=STEM.h -DOUT=STEM.c -DID=STEM
# -DINDEX=NAME.h -P gpublobEmbed.cmake.  Reads gpublob --emit-c's header, each
# output's comment line and array:
#   /* amdgcn gfx90a (ld.lld): 4616 bytes, .hsaco */
#   static const unsigned char STEM_amdgcn_gfx90a[] = {
# and writes STEM.c, which includes the header and defines STEM_blobs[] (target,
# chip, suffix, bytes, size of each output, in the call's order) and
# STEM_blob_count, declared in NAME.h.
#
# Its object mode, -DCONTAINER=STEM.offload instead of -DHEADER (FORMAT offload:
# gpublob --emit-object put the container in STEM.o's .llvm.offloading section,
# with the symbols STEM_offload and STEM_offload_size, which NAME.h declares):
# STEM.c holds one row, {"", "", ".offload", STEM_offload, SIZE}, SIZE the
# container file's (a constant, which the size symbol is not in C).
foreach(_v OUT ID INDEX)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "gpublobEmbed.cmake: -D${_v}=... is missing")
  endif()
endforeach()
if(DEFINED CONTAINER)
  file(SIZE "${CONTAINER}" _size)
  get_filename_component(_container_name "${CONTAINER}" NAME)
  file(WRITE "${OUT}"
       "/* ${ID}.c: made by gpublob_add_kernels (gpublobEmbed.cmake, object mode): the container\n"
       "** ${_container_name}, linked in by gpublob --emit-object's ${ID}.o, as ${ID}_blobs[]. */\n"
       "#include \"${INDEX}\"\n\n"
       "const gpublob_embedded_blob ${ID}_blobs[] = {\n    {\"\", \"\", \".offload\", ${ID}_offload, ${_size}},\n};\n"
       "const size_t ${ID}_blob_count = 1;\n")
  return()
endif()
if(NOT DEFINED HEADER)
  message(FATAL_ERROR "gpublobEmbed.cmake: -DHEADER=... (or -DCONTAINER=...) is missing")
endif()

file(STRINGS "${HEADER}" _lines
     REGEX "^(/\\* [A-Za-z0-9_]+( [^ ]+)? \\([^)]*\\): [0-9]+ bytes, .* \\*/|static const unsigned char [A-Za-z0-9_]+\\[\\] = \\{)$")
set(_rows "")
set(_count 0)
set(_have_comment FALSE)
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^/\\* ([A-Za-z0-9_]+)( ([^ ]+))? \\([^)]*\\): ([0-9]+) bytes, (.*) \\*/$")
    set(_target "${CMAKE_MATCH_1}")
    set(_chip "${CMAKE_MATCH_3}")
    set(_size "${CMAKE_MATCH_4}")
    set(_suffix "${CMAKE_MATCH_5}")
    if(_target STREQUAL "MLIR")
      set(_target "")
    endif()
    set(_have_comment TRUE)
  elseif(_line MATCHES "^static const unsigned char ([A-Za-z0-9_]+)\\[\\] = \\{$" AND _have_comment)
    string(APPEND _rows "    {\"${_target}\", \"${_chip}\", \"${_suffix}\", ${CMAKE_MATCH_1}, ${_size}},\n")
    math(EXPR _count "${_count} + 1")
    set(_have_comment FALSE)
  endif()
endforeach()
if(_count EQUAL 0)
  message(FATAL_ERROR "gpublobEmbed.cmake: no output's array in ${HEADER}")
endif()

get_filename_component(_header_name "${HEADER}" NAME)
file(WRITE "${OUT}"
     "/* ${ID}.c: made by gpublob_add_kernels (gpublobEmbed.cmake) from ${_header_name},\n"
     "** gpublob --emit-c's header: its outputs as ${ID}_blobs[]. */\n"
     "#include \"${INDEX}\"\n#include \"${_header_name}\"\n\n"
     "const gpublob_embedded_blob ${ID}_blobs[] = {\n${_rows}};\n"
     "const size_t ${ID}_blob_count = ${_count};\n")
