#include "tests/fuzz/mutators.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace pz::fuzz {

namespace {

using nlohmann::json;

const std::vector<std::string>& special_bytes() {
  static const std::vector<std::string> bytes = {
      "{", "}", "[", "]", "(", ")", "\"", "'", "\\", ",", ":", ";", "=", "#", "\n", std::string(1, '\0'),
      "\xff", "\xfe\xff", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\t", "\r"};
  return bytes;
}

const std::vector<std::string>& c_tokens() {
  static const std::vector<std::string> tokens = {
      "#pragma scop\n", "#pragma endscop\n", "\n#pragma scop\n", "\n#pragma endscop\n",
      "for (i = 0; i < 2147483647; i++)", "for (int i = 0; i < 2147483647; i++) ",
      "for (i = -2147483648; i <= 2147483647; i += 2147483647)", "for (i = 0; i < 10000000; i++)",
      "/*", "*/", "//", "#define N 2147483647\n", "#define N 99999999999999999999\n", "#define N\n",
      "#if 0\n", "#endif\n", "#include <stdio.h>\n", "if (i < 0) ", "else ", "while (1) ", "goto l; l:",
      "[i][j][k][i][j][k]", "i++", "?", "? 1 : 0", "sizeof(", "A[i] = A[i] / 0;", "x = 1 % 0;",
      "A[-2147483648]", "static double A[2147483647][2147483647];", "int", "double", "void f(void) {",
      "return;", "break;", "continue;", "i = i++ + ++i;", "&&", "||", "<<", ">>", "!", "~", "->", ".",
      "min(", "max(", "floord(", "sqrt(", "(double)", "\\\n"};
  return tokens;
}

// for (i0 = 0; i0 < bound; i0++) ... for (iD-1 ...) A[i0]...[iD-1] = 1.0;
std::string loop_nest(int depth, const std::string& bound) {
  std::string text = "\n#pragma scop\n";
  std::string subscripts;
  for (int d = 0; d < depth; ++d) {
    const std::string it = "i" + std::to_string(d);
    text += "for (" + it + " = 0; " + it + " < " + bound + "; " + it + "++)\n";
    subscripts += "[" + it + "]";
  }
  return text + "  A" + subscripts + " = A" + subscripts + " + 1.0;\n#pragma endscop\n";
}

// One region of `statements` statements, or `regions` regions of one statement each.
std::string many_statements(int statements, int regions) {
  std::string text;
  for (int r = 0; r < regions; ++r) {
    text += "\n#pragma scop\nfor (i = 0; i < 100; i++) {\n";
    for (int s = 0; s < statements; ++s) text += "  A[i] = A[i] + B[i] * " + std::to_string(s + 1) + ".0;\n";
    text += "}\n#pragma endscop\n";
  }
  return text;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (auto p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size())) text.replace(p, from.size(), to);
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The deepest bracket nesting of `text`, capped at `cap` (strings ignored).
int bracket_depth(const std::string& text, int cap) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    if (c == ']' || c == '}') --depth;
    if (deepest > cap) return deepest;
  }
  return deepest;
}

void collect_pointers(const json& value, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  out.push_back(at);
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) collect_pointers(child, at / key, out);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) collect_pointers(value[i], at / i, out);
  }
}

// Words the programs give meaning to: scheduler and optimiser types, modes, games, backends.
const std::vector<std::string>& known_words() {
  static const std::vector<std::string> words = {
      "poly", "inverse_poly", "linear", "constant", "step", "multistep", "exponential", "cosine",
      "cosine_warm_restarts", "lambda", "one_cycle", "reduce_on_plateau", "sequential", "chained", "PolynomialLR",
      "OneCycleLR", "sgd", "adam", "adamw", "cos", "min", "max", "rel", "abs", "resnet", "mlp", "auto", "torch",
      "tictactoe", "connect4", "hex:size=99", "go", "2048", "random", "mcts", "uct", "", " ", "null"};
  return words;
}

// A kernel function around `body` (one scop region's statements), with arrays A (`dims`
// dimensions of `extent`), B, C and the iterators i0..i23, t, i, j, k.
std::string kernel_program(const std::string& body, int dims, const std::string& extent, const std::string& defines = "") {
  std::string array = "A";
  for (int d = 0; d < dims; ++d) array += "[" + extent + "]";
  std::string iterators = "t, i, j, k";
  for (int d = 0; d < 24; ++d) iterators += ", i" + std::to_string(d);
  return defines + "static double " + array + ", B[1000], C[1000][1000];\nvoid kernel(int n, double s) {\n  int " +
         iterators + ";\n#pragma scop\n" + body + "#pragma endscop\n}\n";
}

}  // namespace

std::string Mutator::pathological_c() {
  const std::vector<std::string> bounds = {"N", "n", "2147483647", "10000000", "1000", "100", "4",
                                           "99999999999999999999", "9223372036854775807", "-2147483648"};
  switch (pick(0, 8)) {
    case 0:
    case 1: {  // a deep nest
      const int depth = chance(0.5) ? pick(2, 6) : pick(7, 24);
      const std::string region = loop_nest(depth, one_of(bounds));
      const std::string body = region.substr(region.find("scop\n") + 5, region.rfind("#pragma") - region.find("scop\n") - 5);
      return kernel_program(body, depth, "4", "#define N " + one_of(bounds) + "\n");
    }
    case 2: {  // many statements in one region, or many regions
      std::string text = chance(0.5) ? many_statements(pick(10, 80), 1) : many_statements(pick(1, 3), pick(20, 150));
      return "static double A[100], B[100];\nvoid kernel(void) {\n  int i;\n" + text + "}\n";
    }
    case 3: {  // deep parentheses in a right-hand side, a subscript or a bound
      const std::string deep = nested("(", "i + 1", ")", one_of(std::vector<int>{200, 1000, 3000, 10000, 50000}));
      const int where = pick(0, 2);
      return kernel_program("for (i = 0; i < " + (where == 2 ? deep : "100") + "; i++)\n  A[" + (where == 1 ? deep : "i") +
                                "] = " + (where == 0 ? deep : "1.0") + ";\n",
                            1, "1000");
    }
    case 4: {  // long names
      const std::string name(static_cast<std::size_t>(pick(1000, 60000)), 'v');
      return "static double " + name + "[100];\nvoid kernel(void) {\n  int " + name + "_i;\n#pragma scop\nfor (" + name +
             "_i = 0; " + name + "_i < 100; " + name + "_i++)\n  " + name + "[" + name + "_i] = 0.0;\n#pragma endscop\n}\n";
    }
    case 5: {  // huge constants as offsets, coefficients and steps
      const std::string c = one_of(extreme_numbers());
      return kernel_program(one_of(std::vector<std::string>{
                                "for (i = 0; i < 100; i++)\n  B[i + " + c + "] = 1.0;\n",
                                "for (i = 0; i < 100; i++)\n  B[" + c + " * i] = 1.0;\n",
                                "for (i = 0; i < 100; i += " + c + ")\n  B[i] = 1.0;\n",
                                "for (i = " + c + "; i < 100; i++)\n  B[i] = 1.0;\n",
                                "for (i = 0; i < 100; i++)\n  if (i > " + c + ")\n    B[i] = " + c + ";\n"}),
                            1, "10");
    }
    case 6: {  // skewed and triangular bounds with huge coefficients
      const std::string c = one_of(std::vector<std::string>{"1000000", "2147483647", "65536", "3"});
      return kernel_program("for (i = 0; i < 1000; i++)\n  for (j = " + c + " * i; j < " + c + " * i + " + one_of(bounds) +
                                "; j++)\n    for (k = i; k <= j; k++)\n      C[i % 1000][j % 1000] += C[k % 1000][i] * s;\n",
                            1, "10");
    }
    case 7: {  // a time-stepped stencil over many steps
      const std::string steps = one_of(bounds);
      return kernel_program("for (t = 0; t < " + steps + "; t++)\n  for (i = 1; i < 999; i++)\n    for (j = 1; j < 999; j++)\n"
                            "      C[i][j] = 0.2 * (C[i - 1][j] + C[i + 1][j] + C[i][j - 1] + C[i][j + 1] + C[i][j]);\n",
                            1, "10");
    }
    default: {  // megabytes of plain code around one small region (polyc copies it through)
      const std::string filler = "static double scale(double x) { return x * 3.0 + 1.0; /* copied through */ }\n";
      std::string text;
      const std::size_t size = std::min<std::size_t>(max_size_, static_cast<std::size_t>(pick(1, 4)) << 20);
      while (text.size() + filler.size() < size / 2) text += filler;
      return text + kernel_program("for (i = 0; i < 100; i++)\n  B[i] = B[i] * s;\n", 1, "10") + text;
    }
  }
}

const std::vector<std::string>& extreme_numbers() {
  static const std::vector<std::string> numbers = {
      "99999999999999999999", "-1", "0", "1", "1e308", "-1e308", "1e999", "-1e999", "NaN", "nan", "-nan", "inf",
      "-inf", "Infinity", "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967296",
      "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616", "1e-320",
      "4.9e-324", "-0", "0.0", "0x7fffffff", "1.5", "-0.5", "00", "1e", ".", "-", "+1", "1e+", "0.1e-999",
      std::string(310, '9'), "1" + std::string(400, '0')};
  return numbers;
}

std::string Mutator::nested(const std::string& open, const std::string& core, const std::string& close, int depth) {
  std::string text;
  text.reserve((open.size() + close.size()) * depth + core.size());
  for (int i = 0; i < depth; ++i) text += open;
  text += core;
  for (int i = 0; i < depth; ++i) text += close;
  return text;
}

std::string Mutator::clip(std::string text) const {
  if (text.size() > max_size_) text.resize(max_size_);
  return text;
}

std::size_t Mutator::span_length(std::size_t size) {
  if (size == 0) return 0;
  const std::size_t cap = chance(0.7) ? std::min<std::size_t>(size, 16) : size;
  return 1 + rng_.below(static_cast<std::uint32_t>(std::min<std::size_t>(cap, 1u << 30)));
}

std::string Mutator::interesting_token(bool c_like) {
  switch (pick(0, c_like ? 9 : 6)) {
    case 0:
    case 1:
      return one_of(extreme_numbers());
    case 2:
      return one_of(special_bytes());
    case 3:
      return std::string(static_cast<std::size_t>(pick(1, 4)) * 4096, 'a' + static_cast<char>(pick(0, 25)));
    case 4:
      return std::string(static_cast<std::size_t>(pick(1, 200)), one_of(std::vector<char>{'{', '}', '[', ']', '(', ')'}));
    case 5: {
      const int depth = one_of(std::vector<int>{65, 300, 2000, 5000, 20000});
      return chance(0.5) ? nested("[", "1", "]", depth) : nested("{\"a\":", "1", "}", depth);
    }
    case 6:
      return nested("(", "1", ")", one_of(std::vector<int>{100, 1000, 3000, 10000}));
    case 7:
      return one_of(c_tokens());
    case 8:
      return loop_nest(pick(1, 24), one_of(std::vector<std::string>{"N", "2147483647", "10000000", "1000", "99999999999999999999"}));
    default:
      return chance(0.5) ? many_statements(pick(10, 60), 1) : many_statements(1, pick(20, 120));
  }
}

std::string Mutator::replace_number(std::string text) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (std::isdigit(static_cast<unsigned char>(text[i])) && (i == 0 || !is_ident_char(text[i - 1]))) starts.push_back(i);
  if (starts.empty()) return text;
  const std::size_t at = starts[rng_.below(static_cast<std::uint32_t>(starts.size()))];
  std::size_t end = at;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  const std::string replacement =
      chance(0.8) ? one_of(extreme_numbers()) : nested("(", "1", ")", one_of(std::vector<int>{500, 3000, 10000}));
  return text.replace(at, end - at, replacement);
}

std::string Mutator::replace_identifier(std::string text) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (std::isalpha(static_cast<unsigned char>(text[i])) && (i == 0 || !is_ident_char(text[i - 1]))) starts.push_back(i);
  if (starts.empty()) return text;
  const std::size_t at = starts[rng_.below(static_cast<std::uint32_t>(starts.size()))];
  std::size_t end = at;
  while (end < text.size() && is_ident_char(text[end])) ++end;
  const std::string replacement = chance(0.5) ? std::string(static_cast<std::size_t>(pick(256, 70000)), 'x')
                                              : text.substr(at, end - at) + "_" + std::to_string(pick(0, 9));
  return text.replace(at, end - at, replacement);
}

std::string Mutator::mutate_once(std::string text, const std::vector<std::string>& others, bool c_like) {
  const std::size_t n = text.size();
  const auto position = [&] { return static_cast<std::size_t>(rng_.below(static_cast<std::uint32_t>(n + 1))); };
  switch (pick(0, 11)) {
    case 0:  // flip bits of a few bytes
      for (int k = pick(1, 4); k > 0 && n > 0; --k) text[position() % n] ^= static_cast<char>(1 << pick(0, 7));
      return text;
    case 1: {  // delete a span
      const std::size_t at = position(), len = std::min(span_length(n), n - std::min(at, n));
      return text.erase(at, len);
    }
    case 2: {  // duplicate a span, once or many times
      if (n == 0) return text;
      const std::size_t at = position() % n, len = std::min(span_length(n), n - at);
      const std::string span = text.substr(at, len);
      const int copies = chance(0.8) ? 1 : pick(2, 500);
      std::string repeated;
      for (int c = 0; c < copies && repeated.size() + span.size() <= max_size_; ++c) repeated += span;
      return text.insert(position(), repeated);
    }
    case 3: {  // splice: a prefix of this one, a suffix of another
      if (others.empty()) return text;
      const std::string& other = one_of(others);
      const std::size_t cut = other.empty() ? 0 : rng_.below(static_cast<std::uint32_t>(other.size()));
      return text.substr(0, position()) + other.substr(cut);
    }
    case 4:
    case 5:
    case 6: {  // insert a token: anywhere, at a line start or at the end
      const std::string token = interesting_token(c_like);
      std::size_t at = position();
      if (chance(0.3)) at = n;
      else if (chance(0.3)) at = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
      return text.insert(std::min(at, n), token);
    }
    case 7:
      return replace_number(std::move(text));
    case 8:
      return replace_identifier(std::move(text));
    case 9:  // truncate, rarely to nothing
      return chance(0.15) ? std::string() : text.substr(0, position());
    case 10:  // overwrite one byte with a special one
      if (n > 0) text.replace(position() % n, 1, one_of(special_bytes()));
      return text;
    default:  // replace a span by a token
    {
      const std::size_t at = position(), len = std::min(span_length(n), n - std::min(at, n));
      return text.replace(std::min(at, n), len, interesting_token(c_like));
    }
  }
}

std::string Mutator::mutate_bytes(std::string text, const std::vector<std::string>& others, bool c_like, int max_steps) {
  for (int steps = pick(1, max_steps); steps > 0; --steps) text = clip(mutate_once(std::move(text), others, c_like));
  return text;
}

std::string Mutator::option_value(const std::vector<std::string>& valid) {
  if (!valid.empty() && chance(0.3)) return one_of(valid);
  switch (pick(0, 5)) {
    case 0:
    case 1:
    case 2:
      return one_of(extreme_numbers());
    case 3:
      return one_of(std::vector<std::string>{"", " ", "abc", "true", "false", "yes", "null", "=", ":", "1=2",
                                             "\xff\xfe", "\xc0\x80", "1 2", "\t1", "1\n", "-", "--help"});
    case 4:
      return std::string(static_cast<std::size_t>(pick(100, 5000)), '9');
    default:
      return std::string(static_cast<std::size_t>(pick(1000, 60000)), 'z');
  }
}

std::string Mutator::json_value_text() {
  switch (pick(0, 5)) {
    case 0:
    case 1:
      return option_value({});
    case 2:
      return one_of(std::vector<std::string>{"{}", "[]", "{\"type\":\"poly\"}", "[1,2,3]", "\"\"", "null", "true",
                                             "{\"a\":{\"b\":{}}}", "[null]", "{\"\":0}", "\"\\u0000\"", "\"\\ud800\""});
    case 3:
      return nested("[", "", "]", one_of(std::vector<int>{64, 65, 1000, 30000}));
    case 4:
      return nested("{\"x\":", "0", "}", one_of(std::vector<int>{64, 65, 1000, 20000}));
    default:
      return "\"" + std::string(static_cast<std::size_t>(pick(1000, 100000)), 'q') + "\"";
  }
}

std::string Mutator::mutate_json_mildly(const std::string& text) {
  json doc = bracket_depth(text, 200) > 200 ? json(json::value_t::discarded) : json::parse(text, nullptr, false);
  if (doc.is_discarded()) return text;
  for (int steps = pick(1, 2); steps > 0; --steps) {
    std::vector<json::json_pointer> pointers;
    collect_pointers(doc, json::json_pointer(), pointers);
    const json::json_pointer at = pointers[rng_.below(static_cast<std::uint32_t>(pointers.size()))];
    json& node = doc[at];
    if (node.is_number_integer()) {
      const auto v = node.get<std::int64_t>();
      node = one_of(std::vector<std::int64_t>{v * 2, v / 2, v + 1, v - 1, 0, 1, v * 10, v / 10});
    } else if (node.is_number()) {
      const double v = node.get<double>();
      node = one_of(std::vector<double>{v * 2, v / 2, v + 1, 0, 1, v * 10, v / 10, 1e-9});
    } else if (node.is_boolean()) {
      node = !node.get<bool>();
    } else if (node.is_string() && chance(0.5)) {
      node = one_of(known_words());
    } else if (!at.empty() && doc[at.parent_pointer()].is_object()) {
      doc[at.parent_pointer()].erase(at.back());  // back to the default
    }
  }
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string Mutator::mutate_json(const std::string& text, const std::vector<std::string>& others, int max_steps) {
  // Deep texts (from an earlier mutation) are not parsed here: the fuzzer's own stack.
  json doc = bracket_depth(text, 200) > 200 ? json(json::value_t::discarded) : json::parse(text, nullptr, false);
  if (doc.is_discarded()) return mutate_bytes(text, others, false, max_steps);

  std::vector<std::string> raw;  // texts replacing the placeholder strings "@@pz-raw-N@@"
  std::vector<std::string> dup_keys;  // keys replacing the placeholder keys "@@pz-key-N@@"
  const auto raw_value = [&](std::string value_text) {
    raw.push_back(std::move(value_text));
    return json("@@pz-raw-" + std::to_string(raw.size() - 1) + "@@");
  };

  for (int steps = pick(1, max_steps); steps > 0; --steps) {
    std::vector<json::json_pointer> pointers;
    collect_pointers(doc, json::json_pointer(), pointers);
    const json::json_pointer at = pointers[rng_.below(static_cast<std::uint32_t>(pointers.size()))];
    json& node = doc[at];
    json* parent = at.empty() ? nullptr : &doc[at.parent_pointer()];
    const std::string key = at.empty() ? "" : at.back();
    switch (pick(0, 11)) {
      case 0:  // a value of another type
        node = one_of(std::vector<json>{json(nullptr), json(true), json(0), json(-1), json(0.5), json("text"),
                                        json::array(), json::object(), json::array({1, 2}), json::object({{"a", 1}})});
        break;
      case 1:
      case 2:  // an extreme number, as raw text
        node = raw_value(one_of(extreme_numbers()));
        break;
      case 3:  // a huge string
        node = std::string(std::min<std::size_t>(max_size_ / 2, static_cast<std::size_t>(pick(1000, 2'000'000))),
                           'a' + static_cast<char>(pick(0, 25)));
        break;
      case 4:  // deep nesting, as raw text
        node = raw_value(rng_.below(2) ? nested("[", "0", "]", one_of(std::vector<int>{64, 65, 500, 5000, 50000}))
                                       : nested("{\"k\":", "0", "}", one_of(std::vector<int>{64, 65, 500, 5000})));
        break;
      case 5:  // delete this key or element
        if (parent && parent->is_object()) parent->erase(key);
        else if (parent && parent->is_array()) parent->erase(static_cast<std::size_t>(std::stoul(key)));
        break;
      case 6:  // duplicate this key with another value
        if (parent && parent->is_object()) {
          dup_keys.push_back(key);
          (*parent)["@@pz-key-" + std::to_string(dup_keys.size() - 1) + "@@"] =
              chance(0.5) ? node : json(one_of(extreme_numbers()));
        }
        break;
      case 7:  // rename the key (a typo, an empty or a huge key)
        if (parent && parent->is_object()) {
          json value = node;
          parent->erase(key);
          (*parent)[one_of(std::vector<std::string>{key + "x", "", std::string(5000, 'k'), key.substr(0, key.size() / 2)})] = value;
        }
        break;
      case 8:  // an unknown key
        if (node.is_object()) node["unknown_" + std::to_string(pick(0, 99))] = 1;
        break;
      case 9:  // a word the program knows, in the wrong place
        node = one_of(known_words());
        break;
      case 10:  // an empty object or array
        node = chance(0.5) ? json::object() : json::array();
        break;
      default:  // wrap it
        node = chance(0.5) ? json::array({node}) : json::object({{"type", node}});
        break;
    }
  }

  std::string out = doc.dump(chance(0.5) ? -1 : 2, ' ', false, json::error_handler_t::replace);
  for (std::size_t i = 0; i < raw.size(); ++i) replace_all(out, "\"@@pz-raw-" + std::to_string(i) + "@@\"", raw[i]);
  for (std::size_t i = 0; i < dup_keys.size(); ++i)
    replace_all(out, "\"@@pz-key-" + std::to_string(i) + "@@\"", json(dup_keys[i]).dump(-1, ' ', false, json::error_handler_t::replace));
  if (chance(0.15)) out = mutate_bytes(std::move(out), others, false, 1);
  return clip(std::move(out));
}

}  // namespace pz::fuzz
