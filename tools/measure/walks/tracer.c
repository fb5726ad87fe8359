// Call trace for the walk measure: every instrumented function's entry and exit, as offsets into
// the executable, written to $WALK_TRACE.<pid> when the process ends.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define ATTR __attribute__((no_instrument_function))
static unsigned long *ev; static size_t n, cap; static int off;
ATTR static void push(unsigned long v) {
  // the main thread's walk only: the checker's helper threads (fills, references) are not followed
  static __thread int mine = -1;
  if (mine < 0) mine = getpid() == gettid();
  if (off || !mine) return;
  if (n == cap) { cap = cap ? cap * 2 : 1 << 20; ev = realloc(ev, cap * sizeof *ev); }
  ev[n++] = v;
}
ATTR static unsigned long base(void* fn) { static unsigned long b; if (!b) { Dl_info i; if (dladdr(fn, &i)) b = (unsigned long)i.dli_fbase; } return b; }
ATTR void __cyg_profile_func_enter(void* fn, void* site) { (void)site; push(((unsigned long)fn - base(fn)) << 1); }
ATTR void __cyg_profile_func_exit(void* fn, void* site) { (void)site; push((((unsigned long)fn - base(fn)) << 1) | 1); }
ATTR __attribute__((destructor)) static void dump(void) {
  const char* p = getenv("WALK_TRACE"); if (!p || !n) return;
  off = 1;
  char name[4096]; snprintf(name, sizeof name, "%s.%d", p, (int)getpid());
  FILE* f = fopen(name, "w"); if (!f) return;
  for (size_t i = 0; i < n; ++i) fprintf(f, "%c %lx\n", (ev[i] & 1) ? 'X' : 'E', ev[i] >> 1);
  fclose(f);
}
