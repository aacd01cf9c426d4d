//===- RulesTest.cpp - The rules.txt parser (spec §1.1 grammar) -----------===//
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Error.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace proofc;

namespace {

class RulesTest : public ::testing::Test {
protected:
  Vocab entities{{"a", "b", "it's", "New York"}};
  Vocab relations{{"p", "q", "r", "p_2", "/film/genre", "_hyp"}};

  int32_t rel(const char *name) const { return relations.find(name); }
  int32_t ent(const char *name) const { return entities.find(name); }

  std::vector<Rule> parse(std::string_view text) const {
    return parseRules(text, "rules.txt", entities, relations);
  }

  /// The full error message for `text`, or "(no error)".
  std::string error(std::string_view text) const {
    try {
      parse(text);
    } catch (const Error &e) {
      return e.what();
    }
    return "(no error)";
  }
};

Atom atom(int32_t p, int32_t a, int32_t b) { return Atom{p, a, b}; }

std::string chainRule(int bodyAtoms) {
  std::string text = "p(X,Y) :- ";
  for (int i = 0; i < bodyAtoms; ++i)
    text += i == 0 ? "q(X,Y)" : ", q(X,Y)";
  return text + ".\n";
}

} // namespace

TEST_F(RulesTest, ParsesChainRule) {
  auto rules = parse("p(X,Y) :- q(X,Z), r(Z,Y).\n");
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].line, 1);
  EXPECT_EQ(rules[0].head, atom(rel("p"), -1, -2));
  ASSERT_EQ(rules[0].body.size(), 2u);
  EXPECT_EQ(rules[0].body[0], atom(rel("q"), -1, -3));
  EXPECT_EQ(rules[0].body[1], atom(rel("r"), -3, -2));
}

TEST_F(RulesTest, NumbersVariablesHeadFirstThenBodyArg0BeforeArg1) {
  auto rules = parse("p(Y,X) :- q(W,Y), r(V,W), q(X,U1).");
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].head, atom(rel("p"), -1, -2));    // Y=-1, X=-2
  EXPECT_EQ(rules[0].body[0], atom(rel("q"), -3, -1)); // W=-3
  EXPECT_EQ(rules[0].body[1], atom(rel("r"), -4, -3)); // V=-4
  EXPECT_EQ(rules[0].body[2], atom(rel("q"), -2, -5)); // U1=-5
}

TEST_F(RulesTest, NumberingRestartsForEveryRule) {
  auto rules = parse("p(A,B) :- q(B,A).\np(B,A) :- q(A,A).\n");
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].body[0], atom(rel("q"), -2, -1));
  EXPECT_EQ(rules[1].head, atom(rel("p"), -1, -2));
  EXPECT_EQ(rules[1].body[0], atom(rel("q"), -2, -2));
  EXPECT_EQ(rules[1].line, 2);
}

TEST_F(RulesTest, UnderscoreLedNamesAreVariables) {
  auto rules = parse("p(_X,Y) :- q(_X,_y2), r(_y2,Y).");
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].body[0], atom(rel("q"), -1, -3));
  EXPECT_EQ(rules[0].body[1], atom(rel("r"), -3, -2));
}

TEST_F(RulesTest, QuotedNamesAndConstants) {
  auto rules = parse("'/film/genre'(X,'New York') :- '_hyp'(X,'it''s'), "
                     "p_2(a, 'b').\n");
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].head, atom(rel("/film/genre"), -1, ent("New York")));
  EXPECT_EQ(rules[0].body[0], atom(rel("_hyp"), -1, ent("it's")));
  EXPECT_EQ(rules[0].body[1], atom(rel("p_2"), ent("a"), ent("b")));
  // A quoted name equal to a bare one is the same name.
  rules = parse("'p'(X,Y) :- q(X,Y).");
  EXPECT_EQ(rules[0].head.p, rel("p"));
}

TEST_F(RulesTest, BlanksCommentsAndLineEndings) {
  std::string text = "% header comment\r\n"
                     "\n"
                     "   % indented comment\n"
                     "\tp ( X , Y )  :-  q(X , Y) ,r( Y,X ) . % conf=0.5\r\n"
                     "r(X,Y):-q(Y,X).%no space\n"
                     "   \t\r\n"
                     "q(X,Y) :- p(X,Y).";
  auto rules = parse(text);
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].line, 4);
  EXPECT_EQ(rules[0].head, atom(rel("p"), -1, -2));
  EXPECT_EQ(rules[0].body[1], atom(rel("r"), -2, -1));
  EXPECT_EQ(rules[1].line, 5);
  EXPECT_EQ(rules[2].line, 7);
}

// A leading UTF-8 byte-order mark is dropped (docs/spec-notes.md): before,
// the first rule failed with "expected a predicate name, found '\ufeff'".
// A BOM after the start is a byte of the text like any other.
TEST_F(RulesTest, LeadingByteOrderMarkIsDropped) {
  const std::string bom = "\xEF\xBB\xBF";
  auto rules = parse(bom + "p(X,Y) :- q(X,Y).\n");
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].line, 1);
  EXPECT_EQ(rules[0].head, atom(rel("p"), -1, -2));
  EXPECT_TRUE(parse(bom).empty());
  EXPECT_TRUE(parse(bom + "% comment\n").empty());
  EXPECT_EQ(error(bom + "p(X,Y) :- z(X,Y).\n"),
            "rules.txt:1:11: unknown relation 'z' (not in train, valid or "
            "test)");
  EXPECT_EQ(error("p(X,Y) :- q(X,Y).\n" + bom + "p(X,Y) :- q(X,Y).\n"),
            "rules.txt:2:1: expected a predicate name, found '\xEF\xBB\xBF'");
}

TEST_F(RulesTest, EmptyAndCommentOnlyTextsHaveNoRules) {
  EXPECT_TRUE(parse("").empty());
  EXPECT_TRUE(parse("% only a comment").empty());
  EXPECT_TRUE(parse("\n\n% a\n  \n").empty());
}

TEST_F(RulesTest, AcceptsUpToMaxBodyAtoms) {
  auto rules = parse(chainRule(kMaxBody));
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].body.size(), static_cast<size_t>(kMaxBody));
}

TEST_F(RulesTest, LongerBodyIsAnError) {
  std::string text = "q(X,Y) :- p(X,Y).\n" + chainRule(kMaxBody + 1);
  // The error points at the first atom past the limit.
  size_t lineStart = text.find('\n') + 1;
  size_t column = 10 + 8 * kMaxBody + 1; // "p(X,Y) :- " then ", q(X,Y)" each
  ASSERT_EQ(text.substr(lineStart + column - 1, 6), "q(X,Y)");
  EXPECT_EQ(error(text),
            fmt::format("rules.txt:2:{}: rule body has more than {} atoms "
                        "(the implementation limit)",
                        column, kMaxBody));
}

struct BadRuleCase {
  const char *name;
  const char *text;
  const char *message; // after "rules.txt:"
};

class BadRule : public RulesTest,
                public ::testing::WithParamInterface<BadRuleCase> {};

TEST_P(BadRule, ErrorNamesLineAndColumn) {
  EXPECT_EQ(error(GetParam().text),
            std::string("rules.txt:") + GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, BadRule,
    ::testing::Values(
        BadRuleCase{"MissingDot", "p(X,Y) :- q(X,Y)\n",
                    "1:17: expected ',' or '.' after a body atom, found end "
                    "of line"},
        BadRuleCase{"MissingDotAtEof", "p(X,Y) :- q(X,Y)",
                    "1:17: expected ',' or '.' after a body atom, found end "
                    "of file"},
        BadRuleCase{"WrongSeparator", "p(X,Y) :- q(X,Y);\n",
                    "1:17: expected ',' or '.' after a body atom, found ';'"},
        BadRuleCase{"ControlByte", "p(X,Y) :- q(X,Y)\x01.\n",
                    "1:17: expected ',' or '.' after a body atom, found byte "
                    "0x01"},
        BadRuleCase{"UnknownRelation", "p(X,Y) :- zz(X,Y).\n",
                    "1:11: unknown relation 'zz' (not in train, valid or "
                    "test)"},
        BadRuleCase{"UnknownQuotedRelation", "p(X,Y) :- '/film/genres'(X,Y).",
                    "1:11: unknown relation '/film/genres' (not in train, "
                    "valid or test)"},
        BadRuleCase{"UnknownEntity", "p(X,c) :- q(X,X).\n",
                    "1:5: unknown entity 'c' (not in train, valid or test)"},
        BadRuleCase{"AnonymousVariable", "p(X,Y) :- q(X,_).\n",
                    "1:15: anonymous variable '_' is not allowed"},
        BadRuleCase{"ArityOne", "p(X) :- q(X,Y).\n",
                    "1:4: expected ',' (every predicate has arity 2), found "
                    "')'"},
        BadRuleCase{"ArityThree", "p(X,Y,Z) :- q(X,Y).\n",
                    "1:6: expected ')' (every predicate has arity 2), found "
                    "','"},
        BadRuleCase{"Fact", "p(a,b).\n",
                    "1:7: expected ':-' after the rule head, found '.'"},
        BadRuleCase{"LoneColon", "p(X,Y) : q(X,Y).\n",
                    "1:8: expected ':-' after the rule head, found ':'"},
        BadRuleCase{"EmptyBody", "p(X,Y) :- .\n",
                    "1:11: expected a predicate name, found '.'"},
        BadRuleCase{"TrailingComma", "p(X,Y) :- q(X,Y), .\n",
                    "1:19: expected a predicate name, found '.'"},
        BadRuleCase{"UnterminatedQuote", "'p(X,Y) :- q(X,Y).\n",
                    "1:1: unterminated quoted name"},
        BadRuleCase{"UnterminatedQuoteAtEof", "p(X,Y) :- q(X,'a",
                    "1:15: unterminated quoted name"},
        BadRuleCase{"VariablePredicate", "P(X,Y) :- q(X,Y).\n",
                    "1:1: expected a predicate name, found 'P'"},
        BadRuleCase{"NoHead", ":- q(X,Y).\n",
                    "1:1: expected a predicate name, found ':'"},
        BadRuleCase{"MissingParen", "p X,Y) :- q(X,Y).\n",
                    "1:3: expected '(' after the predicate name, found 'X'"},
        BadRuleCase{"NumberTerm", "p(X, 3) :- q(X,X).\n",
                    "1:6: expected a variable or a constant, found '3'"},
        BadRuleCase{"TwoRulesOnOneLine", "p(X,Y) :- q(X,Y). q(Y,X) :- p(X,Y).",
                    "1:19: expected end of line after '.' (one rule per "
                    "line), found 'q'"},
        BadRuleCase{"RuleAcrossLines", "p(X,Y) :-\n  q(X,Y).\n",
                    "1:10: expected a predicate name, found end of line"},
        BadRuleCase{"LaterLine",
                    "% header\n\n  % indented\np(X,Y) :- q(X,Y).\r\n"
                    "p(X,Y) :- r(X,Y)\n",
                    "5:17: expected ',' or '.' after a body atom, found end "
                    "of line"}),
    [](const auto &info) { return std::string(info.param.name); });
