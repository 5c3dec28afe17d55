/* src/lld_none.c: the object that stands for src/lld.cpp's in a build without lld
** (./configure found no liblld-22-dev or C++ compiler, or was given --without-lld):
** it defines nothing, and amdgcn's hsacos are linked by the ld.lld program.  It keeps
** the library's inputs the same list in every configuration (build.ninja). */
typedef int gpublob_built_without_lld;
