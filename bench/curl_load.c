/* bench/curl_load.c: what loading libcurl costs a process on its own, the floor of
** an HTTP remote hit: dlopen("libcurl.so.4") (and its thirty libraries), as
** src/remote_http.c loads it, then curl_global_init, then exit.  bench/http.sh
** times it beside a whole local hit.  Exit 0; 1 when libcurl does not load. */
#include <dlfcn.h>
#include <stdio.h>

int main(void) {
  void *curl = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  int (*global_init)(long) = curl ? (int (*)(long))dlsym(curl, "curl_global_init") : NULL;
  if (!global_init || global_init(3 /* CURL_GLOBAL_DEFAULT */)) {
    fprintf(stderr, "curl_load: libcurl.so.4 did not load: %s\n", curl ? "no curl_global_init" : dlerror());
    return 1;
  }
  return 0;
}
