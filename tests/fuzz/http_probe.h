// The driver side of an `http` fuzz case (fuzz_cases.h: HttpScript): starts `polyzero
// serve`, waits for its "serving on http://HOST:PORT" line, creates a session, sends each
// request on a connection of its own, opens the event streams, then stops the server with
// SIGTERM. The server keeps the contract when
//   - every request is answered (or its connection closed) within kAnswerSeconds, with a
//     status line, never 500 or another 5xx but 503 (500 is the handlers' last boundary: a
//     bug), and every JSON answer parses as JSON in valid UTF-8;
//   - each event stream gets 200 or 503, and GET /api/games answers 200 within
//     kBusyAnswerSeconds while they are open;
//   - it still answers GET /api/games after the script, and exits with status 0 on SIGTERM
//     within kStopSeconds;
//   - no hostile seat created the case directory's "pwned" file (the driver checks that).
#pragma once

#include <string>

#include "tests/fuzz/fuzz_cases.h"
#include "tests/fuzz/limited_child.h"

namespace pz::fuzz {

inline constexpr double kAnswerSeconds = 10;
inline constexpr double kBusyAnswerSeconds = 5;  // the server's own bound is 2 s; sanitizers and a busy machine
inline constexpr double kStopSeconds = 15;

struct HttpCaseOutcome {
  ChildOutcome outcome;  // the server's
  std::string failure;   // why the server broke the contract; "" when it kept it
};

// `run` starts the server (its argv ends in the case's serve arguments); `dir` is the
// case's directory (for @DIR@ in the requests).
HttpCaseOutcome run_http_case(const ChildRun& run, const ChildLimits& limits, const HttpScript& script,
                              const std::string& dir);

}  // namespace pz::fuzz
