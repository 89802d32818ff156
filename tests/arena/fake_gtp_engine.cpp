// A GTP engine that misbehaves on purpose, for the gtp player's tests. It answers the set-up
// commands (boardsize, clear_board, komi, play, quit, ...) like any engine and remembers the
// vertices played; at genmove it does what its one argument says:
//
//   pass      answers "pass"
//   first     answers the first vertex nobody played, in Hex's naming (a1 b1 c1 ... a2 ...)
//   crash     exits with status 1
//   garbage   writes text that is no GTP response
//   illegal   answers the first vertex played (occupied), or "z99" on an empty board
//   hang      never answers (sleeps until killed)
//   resign    answers "resign"
//   refuse    answers "? not today"
//   badplay   like first, but refuses every play command ("? illegal move")
//   nopass    like first, but refuses "play COLOUR pass" ("? syntax error"), as GRhino does
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

void reply(const std::string& text) { std::cout << "=" << (text.empty() ? "" : " " + text) << "\n\n" << std::flush; }

std::string cell(int column, int row) { return std::string(1, static_cast<char>('a' + column)) + std::to_string(row); }

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "pass";
  int size = 19;
  std::vector<std::string> played;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    std::string command, colour, vertex;
    words >> command >> colour >> vertex;
    if (command.empty()) continue;
    if (command == "quit") {
      reply("");
      return 0;
    }
    if (command == "boardsize") {
      size = std::stoi(colour);
      played.clear();
      reply("");
    } else if (command == "clear_board") {
      played.clear();
      reply("");
    } else if (command == "play") {
      if (mode == "badplay") {
        std::cout << "? illegal move\n\n" << std::flush;
        continue;
      }
      if (mode == "nopass" && vertex == "pass") {
        std::cout << "? syntax error\n\n" << std::flush;
        continue;
      }
      played.push_back(vertex);
      reply("");
    } else if (command == "genmove") {
      if (mode == "crash") return 1;
      if (mode == "hang") {
        for (;;) pause();
      }
      if (mode == "garbage") {
        std::cout << "Welcome! I am not a GTP engine.\n\n" << std::flush;
      } else if (mode == "resign") {
        reply("resign");
      } else if (mode == "refuse") {
        std::cout << "? not today\n\n" << std::flush;
      } else if (mode == "illegal") {
        reply(played.empty() ? "z99" : played.front());
      } else if (mode == "first" || mode == "badplay" || mode == "nopass") {
        std::string free = "pass";
        for (int i = 0; i < size * size && free == "pass"; ++i) {
          const std::string c = cell(i % size, i / size + 1);
          if (std::find(played.begin(), played.end(), c) == played.end()) free = c;
        }
        played.push_back(free);
        reply(free);
      } else {
        reply("pass");
      }
    } else {
      reply("");
    }
  }
  return 0;
}
