#include "util/spec.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace pz::util {
namespace {

TEST(Spec, ParsesNameAndOptions) {
  Spec s = parse_spec(" Hex:size=9, swap=false ");
  EXPECT_EQ(s.name, "hex");
  EXPECT_EQ(s.options.at("size"), "9");
  EXPECT_EQ(s.options.at("swap"), "false");
  EXPECT_EQ(s.to_string(), "hex:size=9,swap=false");
  EXPECT_EQ(parse_spec("random").to_string(), "random");
}

TEST(Spec, ValueMayContainColonsAndEquals) {
  Spec s = parse_spec("gtp:cmd=/usr/games/gnugo --mode=gtp");
  EXPECT_EQ(s.options.at("cmd"), "/usr/games/gnugo --mode=gtp");
}

TEST(Spec, RejectsMalformedText) {
  EXPECT_THROW(parse_spec(""), UsageError);
  EXPECT_THROW(parse_spec(":size=3"), UsageError);
  EXPECT_THROW(parse_spec("hex:size"), UsageError);
  EXPECT_THROW(parse_spec("hex:size="), UsageError);
  EXPECT_THROW(parse_spec("hex:size=3,,swap=true"), UsageError);
  EXPECT_THROW(parse_spec("he x"), UsageError);
  EXPECT_THROW(parse_spec("uct:sims=10,sims=20"), UsageError);  // an option given twice
  EXPECT_THROW(parse_spec("hex:size=5,SIZE=6"), UsageError);
}

TEST(Spec, ALaterTextOverridesAnEarlierOne) {
  std::map<std::string, std::string> options;
  parse_options("size=5,swap=true", options);
  parse_options("size=7", options);  // e.g. --options after --game hex:size=5
  EXPECT_EQ(options.at("size"), "7");
  EXPECT_EQ(options.at("swap"), "true");
}

OptionSchema schema() {
  OptionSchema s;
  s.add_int("size", 11, "board side", 5, 19)
      .add_double("komi", 7.5, "komi")
      .add_bool("swap", true, "swap rule")
      .add_string("rule", "area", "scoring", {"area", "territory"});
  return s;
}

TEST(OptionSchema, FillsDefaultsAndCanonicalises) {
  auto v = schema().resolve({{"size", "+9"}, {"swap", "off"}}, "game 'x'");
  EXPECT_EQ(v.get_int("size"), 9);
  EXPECT_EQ(v.get_double("komi"), 7.5);
  EXPECT_FALSE(v.get_bool("swap"));
  EXPECT_EQ(v.get_string("rule"), "area");
  EXPECT_EQ(v.all().at("size"), "9");
  EXPECT_EQ(v.all().at("swap"), "false");
}

TEST(OptionSchema, ErrorsNameTheProblemAndTheValidChoices) {
  auto message = [](const std::map<std::string, std::string>& given) {
    try {
      schema().resolve(given, "game 'hex'");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"colour", "red"}}).find("valid options: size, komi, swap, rule"), std::string::npos);
  EXPECT_NE(message({{"size", "4"}}).find("5..19"), std::string::npos);
  EXPECT_NE(message({{"size", "9.5"}}).find("an integer"), std::string::npos);
  EXPECT_NE(message({{"komi", "abc"}}).find("a number"), std::string::npos);
  EXPECT_NE(message({{"swap", "maybe"}}).find("true or false"), std::string::npos);
  EXPECT_NE(message({{"rule", "japanese"}}).find("one of area|territory"), std::string::npos);
}

TEST(OptionSchema, DescribeListsEveryOption) {
  std::string text = schema().describe();
  EXPECT_NE(text.find("size (int, 5..19, default 11): board side"), std::string::npos);
  EXPECT_NE(text.find("rule (string, one of area|territory, default area)"), std::string::npos);
}

TEST(Parsing, Numbers) {
  EXPECT_EQ(parse_int("42"), 42);
  EXPECT_EQ(parse_int(" -3 "), -3);
  EXPECT_FALSE(parse_int("4x"));
  EXPECT_FALSE(parse_int(""));
  EXPECT_EQ(parse_double("0.5"), 0.5);
  EXPECT_FALSE(parse_double("nan"));
  EXPECT_FALSE(parse_double("1e999"));
}

}  // namespace
}  // namespace pz::util
