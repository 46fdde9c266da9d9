// The JSON reader under the model loader: strict RFC 8259, numbers as
// strtod of their text, errors with line and column.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "model/json.hpp"

namespace speedqa::model::json {
namespace {

std::string error_of(const std::string& text) {
    try {
        parse(text);
    } catch (const SyntaxError& e) {
        return e.what();
    }
    return "";
}

TEST(Json, ReadsEveryKindOfValue) {
    const Value v = parse(R"( {"a": [1, -2.5e3, 0.1], "b": {"c": null, "d": true, "e": false}, "s": "x\ny\u00e9"} )");
    ASSERT_EQ(v.type, Type::object);
    ASSERT_EQ(v.keys.size(), 3u);
    const Value& a = *v.find("a");
    ASSERT_EQ(a.items.size(), 3u);
    EXPECT_EQ(a.items[1].number, -2500.0);
    EXPECT_EQ(a.items[1].text, "-2.5e3");
    EXPECT_EQ(a.items[2].number, 0.1);
    EXPECT_EQ(v.find("b")->find("c")->type, Type::null);
    EXPECT_TRUE(v.find("b")->find("d")->boolean);
    EXPECT_EQ(v.find("b")->find("e")->type, Type::boolean);
    EXPECT_EQ(v.find("s")->text, "x\ny\xc3\xa9");
    EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(Json, NumbersAreStrtodOfTheirText) {
    // correctly rounded, as strtod (pdjson's json_get_number) gives them
    EXPECT_EQ(parse("0.035000000000000003").number, 0.035000000000000003);
    EXPECT_EQ(parse("-1.2801585513962348").number, -1.2801585513962348);
    EXPECT_TRUE(std::signbit(parse("-0").number));
    EXPECT_EQ(parse("1E2").number, 100.0);
    EXPECT_EQ(parse("1e-400").number, 0.0);     // underflow: 0, as strtod
    EXPECT_TRUE(std::isinf(parse("1e400").number));  // overflow: the model loader refuses it
    EXPECT_EQ(parse("17.0").text, "17.0");
}

TEST(Json, SurrogatePairsBecomeUtf8) {
    EXPECT_EQ(parse(R"("\ud83d\ude00")").text, "\xf0\x9f\x98\x80");
}

TEST(Json, RefusesWhatIsNotJson) {
    for (const char* bad : {"", "   ", "{", "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":1,}", "{a:1}", "01", "1.", ".5",
                            "+1", "1e", "-", "NaN", "Infinity", "-Infinity", "nul", "tru", "\"abc", "\"\\x\"",
                            "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "'a'", "[1] 2", "{} {}", "\"a\tb\"",
                            "\"\xff\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xe2\x82\""}) {
        SCOPED_TRACE(bad);
        EXPECT_NE(error_of(bad), "");
    }
}

TEST(Json, ErrorsSayWhere) {
    EXPECT_EQ(error_of("{\n  \"a\": [1,\n   2,,3]}"), "line 3, column 6: unexpected character ',' where a value should start");
    EXPECT_EQ(error_of("[NaN]"),
              "line 1, column 2: unexpected character 'N' where a value should start (NaN and Infinity are not JSON)");
    EXPECT_EQ(error_of("{\"a\": 1} x"), "line 1, column 10: unexpected character 'x' after the end of the JSON value");
    EXPECT_EQ(error_of("[1,"), "line 1, column 4: unexpected end of text");
}

TEST(Json, RefusesDeepNestingInsteadOfOverflowingTheStack) {
    std::string deep(100000, '[');
    EXPECT_NE(error_of(deep).find("nested deeper than"), std::string::npos);
    std::string ok = std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']');
    EXPECT_EQ(error_of(ok), "");
}

TEST(Json, KeepsMemberOrderAndDuplicates) {
    // the model loader decides what a duplicate means; the reader keeps both
    const Value v = parse(R"({"b": 1, "a": 2, "b": 3})");
    ASSERT_EQ(v.keys.size(), 3u);
    EXPECT_EQ(v.keys[0], "b");
    EXPECT_EQ(v.keys[1], "a");
    EXPECT_EQ(v.find("b")->number, 1.0);
}

}  // namespace
}  // namespace speedqa::model::json
