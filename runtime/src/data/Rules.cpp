//===- Rules.cpp - Recursive-descent parser for rules.txt -----------------===//
//
// Spec §1.1 grammar, one rule per line:
//
//   rule  ::= atom ':-' atom (',' atom)* '.'
//   atom  ::= name '(' term ',' term ')'
//   term  ::= name | variable
//   name  ::= [a-z][A-Za-z0-9_]* | "'" ([^'\n] | "''")* "'"
//   variable ::= [A-Z_][A-Za-z0-9_]*      (but not '_' alone)
//
// Blanks (space, TAB, CR) may appear between tokens, '%' starts a comment that
// runs to the end of the line. Errors read "path:LINE:COL: expected ...".
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Dataset.h"

#include "support/Fail.h"
#include "support/MessageText.h"

#include <utility>

namespace proofc {

namespace {

bool isLower(char c) { return c >= 'a' && c <= 'z'; }
bool isUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentChar(char c) {
  return isLower(c) || isUpper(c) || isDigit(c) || c == '_';
}

class RuleParser {
public:
  RuleParser(std::string_view text, const std::string &path,
             const Vocab &entities, const Vocab &relations)
      : text_(text), path_(path), entities_(entities), relations_(relations) {}

  std::vector<Rule> parseAll() {
    std::vector<Rule> rules;
    while (true) {
      skipBlanks();
      if (atEnd())
        break;
      if (peek() == '\n') {
        newLine();
        continue;
      }
      rules.push_back(parseRule());
      skipBlanks();
      if (atEnd())
        break;
      if (peek() != '\n')
        error(pos_,
              "expected end of line after '.' (one rule per line), "
              "found {}",
              describe(pos_));
      newLine();
    }
    return rules;
  }

private:
  // A name as written in the file; `text` is unescaped for quoted names.
  struct Name {
    std::string_view text;
    size_t at;
  };

  template <typename... Args>
  [[noreturn]] void error(size_t at, fmt::format_string<Args...> format,
                          Args &&...args) {
    fail("{}:{}:{}: {}", path_, line_, at - lineStart_ + 1,
         fmt::format(format, std::forward<Args>(args)...));
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void newLine() {
    ++pos_;
    ++line_;
    lineStart_ = pos_;
  }

  /// Skips blanks and a comment, never past the end of the line.
  void skipBlanks() {
    while (!atEnd()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '%') {
        while (!atEnd() && text_[pos_] != '\n')
          ++pos_;
      } else {
        break;
      }
    }
  }

  std::string describe(size_t at) const {
    if (at >= text_.size())
      return "end of file";
    char c = text_[at];
    if (c == '\n')
      return "end of line";
    // A whole printable character, else the byte (never raw bytes that
    // would make the message invalid UTF-8 or reach the terminal).
    const auto byte = static_cast<unsigned char>(c);
    std::string_view character =
        text_.substr(at, utf8SequenceLength(text_, at));
    if (byte < 0x20 || byte == 0x7f || character.empty() ||
        (character != "\\" && escapeForMessage(character) != character))
      return fmt::format("byte 0x{:02x}", byte);
    return fmt::format("'{}'", character);
  }

  void expect(char c, const char *what) {
    skipBlanks();
    if (peek() != c)
      error(pos_, "expected {}, found {}", what, describe(pos_));
    ++pos_;
  }

  /// A bare or quoted name starting at pos_ (blanks already skipped).
  Name parseName() {
    size_t at = pos_;
    if (peek() == '\'') {
      ++pos_;
      scratch_.clear();
      while (true) {
        if (atEnd() || peek() == '\n')
          error(at, "unterminated quoted name");
        char c = text_[pos_++];
        if (c != '\'') {
          scratch_.push_back(c);
          continue;
        }
        if (peek() != '\'')
          break;
        scratch_.push_back('\'');
        ++pos_;
      }
      return {scratch_, at};
    }
    while (!atEnd() && isIdentChar(text_[pos_]))
      ++pos_;
    return {text_.substr(at, pos_ - at), at};
  }

  int32_t parsePredicate() {
    skipBlanks();
    if (!isLower(peek()) && peek() != '\'')
      error(pos_, "expected a predicate name, found {}", describe(pos_));
    Name name = parseName();
    int32_t id = relations_.find(name.text);
    if (id < 0)
      error(name.at, "unknown relation '{}' (not in train, valid or test)",
            escapeForMessage(name.text));
    return id;
  }

  int32_t parseTerm() {
    skipBlanks();
    char c = peek();
    if (isLower(c) || c == '\'') {
      Name name = parseName();
      int32_t id = entities_.find(name.text);
      if (id < 0)
        error(name.at, "unknown entity '{}' (not in train, valid or test)",
              escapeForMessage(name.text));
      return id;
    }
    if (isUpper(c) || c == '_') {
      size_t at = pos_;
      while (!atEnd() && isIdentChar(text_[pos_]))
        ++pos_;
      std::string_view var = text_.substr(at, pos_ - at);
      if (var == "_")
        error(at, "anonymous variable '_' is not allowed");
      for (const auto &known : vars_)
        if (known.first == var)
          return known.second;
      int32_t id = -static_cast<int32_t>(vars_.size() + 1);
      vars_.emplace_back(var, id);
      return id;
    }
    error(pos_, "expected a variable or a constant, found {}", describe(pos_));
  }

  Atom parseAtom() {
    Atom atom;
    atom.p = parsePredicate();
    expect('(', "'(' after the predicate name");
    atom.a = parseTerm();
    skipBlanks();
    if (peek() == ')')
      error(pos_, "expected ',' (every predicate has arity 2), found ')'");
    expect(',', "','");
    atom.b = parseTerm();
    skipBlanks();
    if (peek() == ',')
      error(pos_, "expected ')' (every predicate has arity 2), found ','");
    expect(')', "')'");
    return atom;
  }

  Rule parseRule() {
    Rule rule;
    rule.line = line_;
    const size_t start = pos_;
    vars_.clear();
    rule.head = parseAtom();
    skipBlanks();
    if (peek() != ':' || pos_ + 1 >= text_.size() || text_[pos_ + 1] != '-')
      error(pos_, "expected ':-' after the rule head, found {}",
            describe(pos_));
    pos_ += 2;
    while (true) {
      skipBlanks();
      if (rule.body.size() == static_cast<size_t>(kMaxBody))
        error(pos_,
              "rule body has more than {} atoms (the implementation "
              "limit)",
              kMaxBody);
      rule.body.push_back(parseAtom());
      skipBlanks();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '.') {
        ++pos_;
        rule.text = std::string(text_.substr(start, pos_ - start));
        return rule;
      }
      error(pos_, "expected ',' or '.' after a body atom, found {}",
            describe(pos_));
    }
  }

  std::string_view text_;
  const std::string &path_;
  const Vocab &entities_;
  const Vocab &relations_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t lineStart_ = 0;
  std::string scratch_; // unescaped quoted name
  std::vector<std::pair<std::string_view, int32_t>> vars_;
};

} // namespace

std::vector<Rule> parseRules(std::string_view text, const std::string &path,
                             const Vocab &entities, const Vocab &relations) {
  return RuleParser(stripLeadingBom(text), path, entities, relations)
      .parseAll();
}

} // namespace proofc
