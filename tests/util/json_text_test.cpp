#include "util/json_text.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace pz::util
