//===- JsonNodeTest.cpp - The one JSON reader's type and range checks -----===//
//
// support/JsonNode.h: every accessor checks the JSON type and the range
// before converting (a float read as an integer was undefined behaviour
// in nlohmann's get<>), and every error names the file and the JSON path.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "support/JsonNode.h"

#include <gtest/gtest.h>

namespace proofc::test {
namespace {

using nlohmann::json;

TEST(JsonNode, IntegersAreIntegerTokensInRange) {
  const json j = json::parse(R"({"a": 7, "f": 9.2233720368547758e19,
    "g": 2.0, "h": 1e39, "big": 18446744073709551615, "neg": -3, "s": "7"})");
  const JsonNode root(j, "", "x.json");
  EXPECT_EQ(root["a"].i64(), 7);
  EXPECT_EQ(root["a"].i32(0, 7), 7);
  EXPECT_EQ(errorOf([&] { root["f"].i64(); }),
            "x.json: f: expected an integer");
  EXPECT_EQ(errorOf([&] { root["g"].i64(); }),
            "x.json: g: expected an integer");
  EXPECT_EQ(errorOf([&] { root["s"].i64(); }),
            "x.json: s: expected an integer");
  EXPECT_EQ(errorOf([&] { root["big"].i64(); }),
            "x.json: big: 18446744073709551615 is out of range "
            "[-9223372036854775808, 9223372036854775807]");
  EXPECT_EQ(root["big"].u64(), 18446744073709551615u);
  EXPECT_EQ(errorOf([&] { root["neg"].u64(); }), "x.json: neg: -3 is negative");
  EXPECT_EQ(errorOf([&] { root["a"].i32(8, 9); }),
            "x.json: a: 7 is out of range [8, 9]");
  EXPECT_EQ(root["g"].number(), 2.0);
  EXPECT_EQ(errorOf([&] { root["h"].f32(); }),
            "x.json: h: 1e+39 is out of the float range");
}

TEST(JsonNode, ObjectsArraysAndPaths) {
  const json j = json::parse(R"({"o": {"k": [1, 2, [3]]}, "t": true})");
  const JsonNode root(j, "", "x.json: the header");
  EXPECT_EQ(root["o"]["k"].array().size(), 3u);
  EXPECT_EQ(errorOf([&] { root["o"]["k"].i64s(); }),
            "x.json: the header: o.k[2]: expected an integer");
  EXPECT_EQ(errorOf([&] { root["o"]["k"].array(2); }),
            "x.json: the header: o.k: expected 2 items, got 3");
  EXPECT_EQ(errorOf([&] { root["o"]["missing"]; }),
            "x.json: the header: o.missing: missing field");
  EXPECT_EQ(errorOf([&] { root["t"]["x"]; }),
            "x.json: the header: t: expected an object");
  EXPECT_EQ(errorOf([&] { root.expectObject({"o"}); }),
            "x.json: the header: t: unknown field");
  root.expectObject({"o"}, {"t"});
  EXPECT_EQ(errorOf([&] { root.expectObject({"o", "t", "u"}); }),
            "x.json: the header: u: missing field");
  EXPECT_TRUE(root["t"].boolean());
  EXPECT_EQ(errorOf([&] { root["o"].text(); }),
            "x.json: the header: o: expected a string");
  EXPECT_EQ(errorOf([&] { JsonNode(j, "", "x.json").error("bad"); }),
            "x.json: (top level): bad");
}

TEST(JsonNode, NamesArePrintableAndShort) {
  const json j = {{"ok", "atom_embed"},
                  {"nl", "a\nb"},
                  {"long", std::string(JsonNode::kMaxNameBytes + 1, 'a')}};
  const JsonNode root(j, "", "b.pcb");
  EXPECT_EQ(root["ok"].str(), "atom_embed");
  EXPECT_NE(errorOf([&] { root["nl"].str(); }).find("is not a name"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { root["long"].str(); }).find("is not a name"),
            std::string::npos);
}

} // namespace
} // namespace proofc::test
