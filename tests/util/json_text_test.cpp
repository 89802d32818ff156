#include "util/json_text.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>

#include "util/error.h"

namespace pz::util {
namespace {

TEST(JsonText, DepthIgnoresBracketsInStrings) {
  EXPECT_EQ(json_nesting_depth(R"({"a": [1, {"b": "[[[["}]})"), 3);
  EXPECT_EQ(json_nesting_depth(R"("\"[")"), 0);
  EXPECT_EQ(json_nesting_depth("42"), 0);
}

TEST(JsonText, DeepNestingIsRefusedBeforeParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    parse_json(deep, "--config");
    FAIL() << "a 100000-deep array was parsed";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--config: the JSON is nested more than 64 levels deep"), std::string::npos);
  }
  EXPECT_NO_THROW(parse_json(std::string(64, '[') + std::string(64, ']'), "x"));
}

TEST(JsonText, ErrorsQuoteNoInput) {
  try {
    parse_json(std::string(5000, 'x'), "config.json");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_LT(std::string(e.what()).size(), 100u);
    EXPECT_NE(std::string(e.what()).find("config.json is not valid JSON (at byte"), std::string::npos);
  }
  EXPECT_THROW(parse_json_object("[1]", "body"), UsageError);
  EXPECT_THROW(parse_json_object("{", "body"), UsageError);
  EXPECT_EQ(parse_json_object(R"({"x": 1})", "body")["x"], 1);
}

TEST(JsonText, NumbersTooLargeForADoubleAreUsageErrors) {
  for (const std::string& number : {std::string("1e999"), std::string("-1e999"), std::string(400, '9')}) {
    try {
      parse_json(R"({"type": "poly", "power": )" + number + "}", "--config");
      FAIL() << number << " was parsed";
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("--config: a number is too large ("), std::string::npos) << message;
      EXPECT_LT(message.size(), 100u) << message;
    }
  }
  EXPECT_EQ(parse_json("99999999999999999999", "x").get<double>(), 1e20);  // wide but finite: a double
}

TEST(JsonText, Utf8IsCheckedAsRfc3629DefinesIt) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("\xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8E\xB2"));  // été € 🎲
  EXPECT_FALSE(is_valid_utf8("\xFF\xFE"));          // never in UTF-8
  EXPECT_FALSE(is_valid_utf8("\xC3"));              // truncated
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\xAF"));      // overlong, three bytes
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("a\x80" "b"));            // a lone continuation byte
}

TEST(JsonText, ForeignBytesAreReplacedWhenQuoted) {
  EXPECT_EQ(to_valid_utf8("a\xff" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(to_valid_utf8("caf\xc3"), "caf\xEF\xBF\xBD");  // cut inside a sequence
  EXPECT_EQ(to_valid_utf8("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_TRUE(is_valid_utf8(to_valid_utf8("\xed\xa0\x80\xf5")));
  const nlohmann::json value = {{"error", std::string("no session \xc3")}};
  EXPECT_NO_THROW(dump_json(value));
  EXPECT_EQ(dump_json(value), "{\"error\":\"no session \xEF\xBF\xBD\"}");
}

TEST(JsonText, IntegersAreNeverWrappedOrTruncated) {
  using nlohmann::json;
  EXPECT_EQ(json_integer(json(800), "sims", 0, 1000), 800);
  EXPECT_EQ(json_integer(json::parse("1e3"), "sims", 0, 1000), 1000);
  EXPECT_THROW(json_integer(json::parse("1e14"), "sims", 0, 10000000), UsageError);
  EXPECT_THROW(json_integer(json(4294967696LL), "sims", 0, 10000000), UsageError);  // wraps to 400 as an int
  EXPECT_THROW(json_integer(json(2.5), "sims", 0, 1000), UsageError);
  EXPECT_THROW(json_integer(json(-1), "sims", 0, 1000), UsageError);
  EXPECT_THROW(json_integer(json("800"), "sims", 0, 1000), UsageError);
  EXPECT_THROW(json_integer(json::parse("18446744073709551615"), "seed", 0, INT64_MAX), UsageError);
  EXPECT_DOUBLE_EQ(json_number(json(0.5), "seconds", 0, 10), 0.5);
  EXPECT_THROW(json_number(json(std::nan("")), "seconds", 0, 10), UsageError);
  EXPECT_THROW(json_number(json(1e300), "seconds", 0, 86400), UsageError);
}

}  // namespace
}  // namespace pz::util
