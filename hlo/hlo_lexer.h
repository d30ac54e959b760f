#ifndef XLA_HLO_HLO_LEXER_H_
#define XLA_HLO_HLO_LEXER_H_

// Tokenizer for XLA's HLO text. Context-free tokens only; the few context-dependent
// forms (window sizes `3x3`, pad configs `1_1x0_0`, dim labels `b01f_01io->b01f`, JSON
// backend configs) are read by the parser as raw text through ReadRawWord /
// ReadBalancedBraces, so the lexer never has to guess which form it is looking at.

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"

namespace xla {

enum class TokKind {
  kEof,
  kError,
  kEqual,     // =
  kComma,     // ,
  kColon,     // :
  kAsterisk,  // *
  kHash,      // #
  kPlus,      // +
  kTilde,     // ~
  kQuestion,  // ?
  kMinus,     // - not starting a number or an arrow (as in -inf)
  kLsquare,
  kRsquare,
  kLbrace,
  kRbrace,
  kLparen,
  kRparen,
  kArrow,  // ->
  kLeq,    // <=
  kDots,   // ...
  kIdent,  // names, keywords, types; may start with % and contain . - _ $
  kInt,    // decimal or 0x hex integer, optional leading '-'
  kFloat,  // number with '.' or exponent
  kString, // "..." with C escapes decoded into `str`
};

absl::string_view TokKindName(TokKind kind);

struct Token {
  TokKind kind = TokKind::kEof;
  absl::string_view text;  // raw source text of the token
  std::string str;        // decoded string (kString), or identifier without '%' (kIdent)
  int64_t pos = 0;        // byte offset
  int line = 1;
  int col = 1;
};

class HloLexer {
 public:
  explicit HloLexer(absl::string_view text) : text_(text) {}

  // The next token without consuming it.
  const Token& Peek();
  Token Next();
  TokKind PeekKind() { return Peek().kind; }

  // Skips whitespace/comments and returns the maximal run of characters not in
  // " \t\r\n,{}()[]" (used for 3x3, 1_1x0_0, b01f_01io->b01f). Discards any peeked token.
  Token ReadRawWord();
  // At '{' (after whitespace/comments): returns the text of the balanced brace group,
  // braces included, skipping quoted strings. kError if unbalanced.
  Token ReadBalancedBraces();

  // Moves back (or forward) to byte offset `pos`, dropping any peeked token.
  void Reset(int64_t pos) {
    pos_ = pos;
    has_peek_ = false;
  }
  // Location of a byte offset.
  void LineCol(int64_t pos, int* line, int* col) const;
  int64_t pos() const { return has_peek_ ? peek_.pos : pos_; }
  absl::string_view text() const { return text_; }

 private:
  Token Lex();
  void SkipSpaceAndComments(bool* error);
  Token Make(TokKind kind, int64_t start, int64_t end);

  absl::string_view text_;
  // LineCol's resume point (see hlo_lexer.cc).
  mutable int64_t line_cache_pos_ = 0;
  mutable int line_cache_line_ = 1;
  mutable int64_t line_cache_start_ = 0;
  int64_t pos_ = 0;
  bool has_peek_ = false;
  Token peek_;
};

}  // namespace xla

#endif  // XLA_HLO_HLO_LEXER_H_
