#include "polyhedral/codegen/busy_machine.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "polyhedral/ir/scop.h"

namespace pz::poly {

std::string team_size_clause(const std::string& requested) {
  return "pz_polyc_team_size(" + (requested.empty() ? std::string("omp_get_max_threads()") : requested) + ")";
}

bool uses_team_size(const std::string& code) { return code.find("pz_polyc_team_size(") != std::string::npos; }

// /proc/loadavg's fourth field is "R/T": R the threads runnable now, over all cores, T all
// threads. With the program's own threads asleep between parallel loops (passive waiting),
// R counts the caller and other work. The check needs POSIX 2008 (clock_gettime, O_CLOEXEC,
// strcasecmp), which a file compiled in strict ISO mode does not declare: it then gets the
// requested team. PZ_POLYC_LOADAVG names the file (tests point it at their own).
const char* const kTeamSizeHelper = R"(
#ifndef PZ_POLYC_TEAM_SIZE
#define PZ_POLYC_TEAM_SIZE
/* polyc: a parallel loop's team leaves out the cores other programs keep busy, so that it
   does not wait at its join for a thread that shares a core. With passively waiting OpenMP
   threads (OMP_WAIT_POLICY=passive or GOMP_SPINCOUNT=0), /proc/loadavg's runnable count,
   read at most every 10 ms, less the caller is other work; the team is at most the cores
   left idle, and at least 1. -DPZ_POLYC_FIXED_TEAM: always the requested team. */
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(_OPENMP) && defined(__linux__) && defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200809L && \
    !defined(PZ_POLYC_FIXED_TEAM)
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#ifndef PZ_POLYC_LOADAVG
#define PZ_POLYC_LOADAVG "/proc/loadavg"
#endif
#ifdef CLOCK_MONOTONIC_COARSE
#define PZ_POLYC_CLOCK CLOCK_MONOTONIC_COARSE
#else
#define PZ_POLYC_CLOCK CLOCK_MONOTONIC
#endif
/* The cores not running threads other than the caller (0 or more); -1 when unknown. */
__attribute__((unused)) static int pz_polyc_idle_cores(void) {
  static __thread long online;
  char text[128];
  const char *p = text;
  int fd, field, runnable;
  ssize_t got;
  if (online == 0) online = sysconf(_SC_NPROCESSORS_ONLN);
  fd = open(PZ_POLYC_LOADAVG, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0) return -1;
  text[got] = 0;
  for (field = 0; field < 3 && p; ++field) {
    p = strchr(p, ' ');
    if (p) ++p;
  }
  if (!p) return -1;
  runnable = atoi(p);
  if (runnable < 1 || online < 1) return -1;
  return runnable - 1 >= online ? 0 : (int)(online - (runnable - 1));
}
__attribute__((unused)) static int pz_polyc_team_size(int requested) {
  static __thread int passive = -1, idle;
  static __thread long long next_check_ns;
  struct timespec now;
  long long ns;
  if (requested <= 1) return requested;
  if (passive < 0) {
    const char *policy = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
    passive = (policy && strcasecmp(policy, "passive") == 0) || (spin && strcmp(spin, "0") == 0);
  }
  if (!passive || clock_gettime(PZ_POLYC_CLOCK, &now) != 0) return requested;
  ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
  if (ns >= next_check_ns) {
    idle = pz_polyc_idle_cores();
    next_check_ns = ns + 10000000LL;
  }
  if (idle < 0 || idle >= requested) return requested;
  return idle < 1 ? 1 : idle;
}
#else
__attribute__((unused)) static int pz_polyc_team_size(int requested) { return requested; }
#endif
#endif
)";

// Whether `source` defines `main` (a `main(...)` followed by `{`): its output is a program,
// whose start-up polyc may extend.
bool defines_main(const std::string& source) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = source.find("main"); at != std::string::npos; at = source.find("main", at + 4)) {
    if ((at > 0 && word(source[at - 1])) || (at + 4 < source.size() && word(source[at + 4]))) continue;
    size_t p = source.find_first_not_of(" \t\n", at + 4);
    if (p == std::string::npos || source[p] != '(') continue;
    const size_t close = source.find(')', p);
    if (close == std::string::npos) return false;
    p = source.find_first_not_of(" \t\n", close + 1);
    if (p != std::string::npos && source[p] == '{') return true;
  }
  return false;
}

namespace {

// What start_up_hooks maps of each OpenMP thread's stack beyond the local arrays: the
// frames of the kernels and of libgomp.
constexpr long long kStartUpStackBytes = 65536;

// More than any stack holds: local_array_bytes saturates here (the hook maps at most 1 MiB).
constexpr long long kUnmappable = 1LL << 40;

// libgomp's threads wait for the next parallel region, or at a barrier, by spinning for
// GOMP_SPINCOUNT iterations (3x10^5 when OMP_WAIT_POLICY is unset) before they sleep. With
// another process on one of two cores, a spinning thread keeps the core its descheduled
// partner needs, and even a bounded spin costs a time-tiled stencil several times what
// sleeping does (the numbers are in docs/BENCHMARKS.md). libgomp reads these variables
// once, in its constructor, from the environment the process started with: a program cannot
// change them for itself afterwards (a .preinit_array setenv is undone when libc's own
// initialisation resets `environ`). So a program polyc
// writes (the file defines main, the output has a parallel loop) re-executes itself once,
// at start-up, with OMP_WAIT_POLICY=passive, unless the user set OMP_WAIT_POLICY or
// GOMP_SPINCOUNT; where exec fails it runs on with libgomp's default.
const char* const kStartUpHooks = R"(
/* polyc: OpenMP threads that wait sleep rather than spin (OMP_WAIT_POLICY=passive unless
   OMP_WAIT_POLICY or GOMP_SPINCOUNT is set), so that on a busy machine they leave the
   core to the thread they wait for. libgomp reads the variable before any constructor
   runs, hence one re-execution at start-up. -DPZ_POLYC_NO_WAIT_POLICY: libgomp's default. */
#if defined(_OPENMP) && defined(__linux__) && defined(__GNUC__) && !defined(PZ_POLYC_NO_WAIT_POLICY)
extern char *getenv(const char *);
extern int setenv(const char *, const char *, int);
extern int execv(const char *, char *const[]);
__attribute__((constructor(101))) static void pz_polyc_passive_wait(int argc, char **argv) {
  (void)argc;
  if (!argv || getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 0) == 0) execv("/proc/self/exe", argv);
}
#endif
/* polyc: the OpenMP threads start with the program, each with the part of its stack that
   the kernels' local arrays take mapped (PZ_POLYC_STACK_BYTES, at most 1 MiB; 64 KiB where
   OMP_STACKSIZE or GOMP_STACKSIZE may have made libgomp's stacks smaller than the stack
   limit they get otherwise), rather than in the first parallel loop, which would pay for
   both (a page fault costs microseconds, more in a virtual machine).
   -DPZ_POLYC_NO_THREAD_START: they start in the first parallel loop. */
#if defined(_OPENMP) && defined(__GNUC__) && !defined(PZ_POLYC_NO_THREAD_START)
#include <stdlib.h>
#ifndef PZ_POLYC_STACK_BYTES
#define PZ_POLYC_STACK_BYTES @STACK_BYTES@L
#endif
#if PZ_POLYC_STACK_BYTES > 1048576L
#undef PZ_POLYC_STACK_BYTES
#define PZ_POLYC_STACK_BYTES 1048576L
#endif
__attribute__((noinline)) static void pz_polyc_map_stack(void) {
  volatile char pz_stack[PZ_POLYC_STACK_BYTES];
  long pz_at;
  for (pz_at = 0; pz_at < (long)sizeof pz_stack; pz_at += 4096) pz_stack[pz_at] = 0;
}
__attribute__((noinline)) static void pz_polyc_map_frames(void) {
  volatile char pz_stack[65536];
  long pz_at;
  for (pz_at = 0; pz_at < (long)sizeof pz_stack; pz_at += 4096) pz_stack[pz_at] = 0;
}
__attribute__((constructor)) static void pz_polyc_start_threads(void) {
  const int sized = !getenv("OMP_STACKSIZE") && !getenv("GOMP_STACKSIZE");
  #pragma omp parallel
  {
    if (sized) pz_polyc_map_stack();
    else pz_polyc_map_frames();
  }
}
#endif
)";

}  // namespace

std::string start_up_hooks(long long stack_bytes) {
  std::string text = kStartUpHooks;
  const std::string slot = "@STACK_BYTES@";
  text.replace(text.find(slot), slot.size(), std::to_string(std::max(0LL, stack_bytes) + kStartUpStackBytes));
  return text;
}

long long local_array_bytes(const std::string& code) {
  static const std::regex declaration(
      R"((?:^|[\n;{}])\s*(?!return\b)(__typeof__\([^()]*\)|(?:unsigned |signed |long |short )*[A-Za-z_]\w*)\s+pz_\w+((?:\[\d+\])+)(?:\s+__attribute__\(\(aligned\(\d+\)\)\))?(?=\s*;))");
  long long bytes = 0;
  for (std::sregex_iterator m(code.begin(), code.end(), declaration), end; m != end; ++m) {
    long long elements = 1;
    const std::string extents = (*m)[2];
    for (size_t at = extents.find('['); at != std::string::npos; at = extents.find('[', at + 1)) {
      const size_t digits = extents.find(']', at) - at - 1;
      const long long extent = digits > 12 ? kUnmappable : std::stoll(extents.substr(at + 1, digits));
      elements = extent > 0 && elements > kUnmappable / extent ? kUnmappable : std::min(kUnmappable, elements * extent);
    }
    bytes = std::min(kUnmappable, bytes + elements * c_type_bytes((*m)[1]));
  }
  return bytes;
}

}  // namespace pz::poly
