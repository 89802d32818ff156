// What polyc adds to its output so that parallel loops tolerate a machine whose cores other
// programs also use:
//  - a program's OpenMP threads wait passively (wait_policy_hook): a spinning thread keeps
//    the core its descheduled partner needs;
//  - each parallel loop's team leaves out the cores other work keeps busy
//    (team_size_clause, kTeamSizeHelper). A loop split evenly between a thread with a core
//    and one that shares its core waits at the join for the latter, so with one of two
//    cores busy two threads take as long as one, plus the fork: the loop runs on one.
#pragma once

#include <string>

namespace pz::poly {

// The expression for a parallel loop's num_threads() clause: the team size helper applied to
// `requested` (a C expression; empty: the OpenMP default, omp_get_max_threads()).
std::string team_size_clause(const std::string& requested);

// Whether generated code calls the team size helper (and so needs kTeamSizeHelper before it).
bool uses_team_size(const std::string& code);

// C (and C++) text defining the team size helper, guarded so that a file may hold it more
// than once. It must precede the function whose loops call it.
//
// pz_polyc_team_size(requested) returns `requested` unless the program's OpenMP threads wait
// passively (OMP_WAIT_POLICY=passive, as the wait policy hook sets, or GOMP_SPINCOUNT=0):
// only then are the machine's runnable threads other work. It then reads the runnable count
// R of /proc/loadavg (Linux, at most every 10 ms per calling thread) and returns
// min(requested, max(1, online cores - (R - 1))): the caller itself is one of R.
// -DPZ_POLYC_FIXED_TEAM compiles it to `requested`.
extern const char* const kTeamSizeHelper;

// Whether `source` defines `main` (a `main(...)` followed by `{`): its output is a program,
// whose start-up polyc may extend.
bool defines_main(const std::string& source);

// The start-up hooks of a program with parallel loops: one re-execution with
// OMP_WAIT_POLICY=passive unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT, then the
// OpenMP threads started before main, as a BLAS starts its thread pool when loaded, instead
// of inside the first parallel loop, each with `stack_bytes` and 64 KiB of frames of its stack
// mapped (at most 1 MiB; 64 KiB where OMP_STACKSIZE or GOMP_STACKSIZE is set): the page faults
// of the kernels' local arrays are paid once, at start-up, not in their first call.
std::string start_up_hooks(long long stack_bytes);

// The bytes of the local arrays declared in `code`, polyc's output for one function's
// regions: every `T pz_name[N]...;` (constant extents, an optional aligned attribute; T a
// type's name or a `__typeof__(...)`), summed, since the arrays of nested blocks are live
// at once. A type polyc does not know counts 8 bytes an element (c_type_bytes).
long long local_array_bytes(const std::string& code);

}  // namespace pz::poly
