#include "hlo/hlo_lexer.h"

#include <vector>

#include "gtest/gtest.h"

namespace xla {
namespace {

std::vector<TokKind> Kinds(const char* text) {
  HloLexer lex(text);
  std::vector<TokKind> out;
  while (true) {
    Token t = lex.Next();
    out.push_back(t.kind);
    if (t.kind == TokKind::kEof || t.kind == TokKind::kError) break;
  }
  return out;
}

TEST(HloLexerTest, PunctuationAndArrows) {
  EXPECT_EQ(Kinds("()->f32[<=4]{1,0:T(8)}"),
            (std::vector<TokKind>{TokKind::kLparen, TokKind::kRparen, TokKind::kArrow,
                                  TokKind::kIdent, TokKind::kLsquare, TokKind::kLeq,
                                  TokKind::kInt, TokKind::kRsquare, TokKind::kLbrace,
                                  TokKind::kInt, TokKind::kComma, TokKind::kInt, TokKind::kColon,
                                  TokKind::kIdent, TokKind::kLparen, TokKind::kInt,
                                  TokKind::kRparen, TokKind::kRbrace, TokKind::kEof}));
}

TEST(HloLexerTest, NamesWithSigilsDotsAndDashes) {
  HloLexer lex("%get-tuple-element.1 custom-call-start x");
  Token a = lex.Next();
  EXPECT_EQ(a.kind, TokKind::kIdent);
  EXPECT_EQ(a.str, "get-tuple-element.1");
  EXPECT_EQ(lex.Next().str, "custom-call-start");
  EXPECT_EQ(lex.Next().str, "x");
}

TEST(HloLexerTest, NumbersAndMinus) {
  HloLexer lex("-12 1.5e-3 0x1F -inf 3e");
  EXPECT_EQ(lex.Next().kind, TokKind::kInt);
  Token f = lex.Next();
  EXPECT_EQ(f.kind, TokKind::kFloat);
  EXPECT_EQ(f.text, "1.5e-3");
  Token h = lex.Next();
  EXPECT_EQ(h.kind, TokKind::kInt);
  EXPECT_EQ(h.text, "0x1F");
  EXPECT_EQ(lex.Next().kind, TokKind::kMinus);
  EXPECT_EQ(lex.Next().str, "inf");
  EXPECT_EQ(lex.Next().text, "3");  // "3e" without exponent digits: int then name
  EXPECT_EQ(lex.Next().str, "e");
}

TEST(HloLexerTest, StringsAreUnescaped) {
  HloLexer lex(R"("foo\"bar\n\x41\101")");
  Token t = lex.Next();
  EXPECT_EQ(t.kind, TokKind::kString);
  EXPECT_EQ(t.str, "foo\"bar\nAA");
}

TEST(HloLexerTest, CommentsAreSkippedAndPositionsKept) {
  HloLexer lex("// line\n  /* block\n */ x /*index=5*/ y");
  Token x = lex.Next();
  EXPECT_EQ(x.str, "x");
  int line, col;
  lex.LineCol(x.pos, &line, &col);
  EXPECT_EQ(line, 3);
  EXPECT_EQ(col, 5);
  EXPECT_EQ(lex.Next().str, "y");
  EXPECT_EQ(lex.Next().kind, TokKind::kEof);
}

TEST(HloLexerTest, Errors) {
  EXPECT_EQ(Kinds("/* never closed").back(), TokKind::kError);
  EXPECT_EQ(Kinds("\"open").back(), TokKind::kError);
  EXPECT_EQ(Kinds("a ` b").back(), TokKind::kError);
}

TEST(HloLexerTest, RawWordsAndBalancedBraces) {
  HloLexer lex("= b01f_01io->b01f, {\"a\": \"}\", \"b\": {1}} z");
  EXPECT_EQ(lex.Next().kind, TokKind::kEqual);
  EXPECT_EQ(lex.ReadRawWord().text, "b01f_01io->b01f");
  EXPECT_EQ(lex.Next().kind, TokKind::kComma);
  Token braces = lex.ReadBalancedBraces();
  EXPECT_EQ(braces.kind, TokKind::kString);
  EXPECT_EQ(braces.str, "{\"a\": \"}\", \"b\": {1}}");
  EXPECT_EQ(lex.Next().str, "z");
}

}  // namespace
}  // namespace xla
