#include "hlo/hlo_lexer.h"

#include <algorithm>
#include <cctype>

namespace xla {
namespace {

bool IsIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '%' || c == '$';
}
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ||
         c == '$';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

absl::string_view TokKindName(TokKind kind) {
  switch (kind) {
    case TokKind::kEof: return "end of input";
    case TokKind::kError: return "error";
    case TokKind::kEqual: return "'='";
    case TokKind::kComma: return "','";
    case TokKind::kColon: return "':'";
    case TokKind::kAsterisk: return "'*'";
    case TokKind::kHash: return "'#'";
    case TokKind::kPlus: return "'+'";
    case TokKind::kTilde: return "'~'";
    case TokKind::kQuestion: return "'?'";
    case TokKind::kMinus: return "'-'";
    case TokKind::kLsquare: return "'['";
    case TokKind::kRsquare: return "']'";
    case TokKind::kLbrace: return "'{'";
    case TokKind::kRbrace: return "'}'";
    case TokKind::kLparen: return "'('";
    case TokKind::kRparen: return "')'";
    case TokKind::kArrow: return "'->'";
    case TokKind::kLeq: return "'<='";
    case TokKind::kDots: return "'...'";
    case TokKind::kIdent: return "identifier";
    case TokKind::kInt: return "integer";
    case TokKind::kFloat: return "number";
    case TokKind::kString: return "string";
  }
  return "?";
}

void HloLexer::LineCol(int64_t pos, int* line, int* col) const {
  pos = std::max<int64_t>(0, std::min<int64_t>(pos, text_.size()));
  // Callers mostly ask for increasing positions (one per instruction): resume the scan
  // from the last answer so that locating every instruction stays linear overall.
  if (pos < line_cache_pos_) {
    line_cache_pos_ = 0;
    line_cache_line_ = 1;
    line_cache_start_ = 0;
  }
  for (int64_t i = line_cache_pos_; i < pos; ++i) {
    if (text_[i] == '\n') {
      ++line_cache_line_;
      line_cache_start_ = i + 1;
    }
  }
  line_cache_pos_ = pos;
  *line = line_cache_line_;
  *col = static_cast<int>(pos - line_cache_start_) + 1;
}

Token HloLexer::Make(TokKind kind, int64_t start, int64_t end) {
  Token t;
  t.kind = kind;
  t.pos = start;
  t.text = text_.substr(start, end - start);
  return t;
}

const Token& HloLexer::Peek() {
  if (!has_peek_) {
    peek_ = Lex();
    has_peek_ = true;
  }
  return peek_;
}

Token HloLexer::Next() {
  Peek();
  has_peek_ = false;
  return std::move(peek_);
}

void HloLexer::SkipSpaceAndComments(bool* error) {
  const int64_t n = text_.size();
  while (pos_ < n) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < n && text_[pos_ + 1] == '/') {
      while (pos_ < n && text_[pos_] != '\n') ++pos_;
    } else if (c == '/' && pos_ + 1 < n && text_[pos_ + 1] == '*') {
      int64_t end = text_.find("*/", pos_ + 2);
      if (end == absl::string_view::npos) {
        *error = true;
        return;
      }
      pos_ = end + 2;
    } else {
      return;
    }
  }
}

Token HloLexer::Lex() {
  bool error = false;
  int64_t comment_start = pos_;
  SkipSpaceAndComments(&error);
  if (error) {
    Token t = Make(TokKind::kError, comment_start, text_.size());
    t.str = "unterminated /* comment";
    pos_ = text_.size();
    return t;
  }
  const int64_t n = text_.size();
  const int64_t start = pos_;
  if (pos_ >= n) return Make(TokKind::kEof, n, n);
  char c = text_[pos_];
  auto single = [&](TokKind k) {
    ++pos_;
    return Make(k, start, pos_);
  };
  switch (c) {
    case '=': return single(TokKind::kEqual);
    case ',': return single(TokKind::kComma);
    case ':': return single(TokKind::kColon);
    case '*': return single(TokKind::kAsterisk);
    case '#': return single(TokKind::kHash);
    case '+': return single(TokKind::kPlus);
    case '~': return single(TokKind::kTilde);
    case '?': return single(TokKind::kQuestion);
    case '[': return single(TokKind::kLsquare);
    case ']': return single(TokKind::kRsquare);
    case '{': return single(TokKind::kLbrace);
    case '}': return single(TokKind::kRbrace);
    case '(': return single(TokKind::kLparen);
    case ')': return single(TokKind::kRparen);
    default: break;
  }
  if (c == '<' && pos_ + 1 < n && text_[pos_ + 1] == '=') {
    pos_ += 2;
    return Make(TokKind::kLeq, start, pos_);
  }
  if (c == '.' && text_.substr(pos_, 3) == "...") {
    pos_ += 3;
    return Make(TokKind::kDots, start, pos_);
  }
  if (c == '-' && pos_ + 1 < n && text_[pos_ + 1] == '>') {
    pos_ += 2;
    return Make(TokKind::kArrow, start, pos_);
  }
  if (IsDigit(c) || ((c == '-' || c == '.') && pos_ + 1 < n && IsDigit(text_[pos_ + 1]))) {
    int64_t p = pos_;
    if (text_[p] == '-') ++p;
    if (text_[p] == '0' && p + 1 < n && (text_[p + 1] == 'x' || text_[p + 1] == 'X')) {
      p += 2;
      while (p < n && std::isxdigit(static_cast<unsigned char>(text_[p]))) ++p;
      pos_ = p;
      return Make(TokKind::kInt, start, pos_);
    }
    bool is_float = false;
    while (p < n && IsDigit(text_[p])) ++p;
    if (p < n && text_[p] == '.' && text_.substr(p, 3) != "...") {
      is_float = true;
      ++p;
      while (p < n && IsDigit(text_[p])) ++p;
    }
    if (p < n && (text_[p] == 'e' || text_[p] == 'E')) {
      int64_t q = p + 1;
      if (q < n && (text_[q] == '+' || text_[q] == '-')) ++q;
      if (q < n && IsDigit(text_[q])) {
        is_float = true;
        p = q;
        while (p < n && IsDigit(text_[p])) ++p;
      }
    }
    pos_ = p;
    return Make(is_float ? TokKind::kFloat : TokKind::kInt, start, pos_);
  }
  if (c == '-') return single(TokKind::kMinus);
  if (IsIdentStart(c)) {
    int64_t p = pos_ + 1;
    while (p < n && IsIdentChar(text_[p])) ++p;
    // A name never ends in '-' followed by '>' (as in "()->f32"): give the arrow back.
    if (p - 1 > pos_ && text_[p - 1] == '-' && p < n && text_[p] == '>') --p;
    pos_ = p;
    Token t = Make(TokKind::kIdent, start, pos_);
    t.str = std::string(c == '%' ? t.text.substr(1) : t.text);
    if (t.str.empty()) {
      t.kind = TokKind::kError;
      t.str = "'%' must be followed by a name";
    }
    return t;
  }
  if (c == '"') {
    std::string out;
    int64_t p = pos_ + 1;
    while (p < n && text_[p] != '"') {
      char ch = text_[p];
      if (ch == '\\' && p + 1 < n) {
        char e = text_[p + 1];
        p += 2;
        switch (e) {
          case 'n': out.push_back('\n'); break;
          case 't': out.push_back('\t'); break;
          case 'r': out.push_back('\r'); break;
          case '\\': out.push_back('\\'); break;
          case '"': out.push_back('"'); break;
          case '\'': out.push_back('\''); break;
          case '?': out.push_back('?'); break;
          case 'a': out.push_back('\a'); break;
          case 'b': out.push_back('\b'); break;
          case 'f': out.push_back('\f'); break;
          case 'v': out.push_back('\v'); break;
          case 'x': {
            int v = 0, digits = 0;
            while (p < n && digits < 2 && std::isxdigit(static_cast<unsigned char>(text_[p]))) {
              char h = text_[p++];
              v = v * 16 + (IsDigit(h) ? h - '0' : (std::tolower(h) - 'a' + 10));
              ++digits;
            }
            out.push_back(static_cast<char>(v));
            break;
          }
          default:
            if (e >= '0' && e <= '7') {
              int v = e - '0', digits = 1;
              while (p < n && digits < 3 && text_[p] >= '0' && text_[p] <= '7') {
                v = v * 8 + (text_[p++] - '0');
                ++digits;
              }
              out.push_back(static_cast<char>(v));
            } else {
              out.push_back(e);
            }
        }
      } else {
        out.push_back(ch);
        ++p;
      }
    }
    if (p >= n) {
      pos_ = n;
      Token t = Make(TokKind::kError, start, n);
      t.str = "unterminated string";
      return t;
    }
    pos_ = p + 1;
    Token t = Make(TokKind::kString, start, pos_);
    t.str = std::move(out);
    return t;
  }
  ++pos_;
  Token t = Make(TokKind::kError, start, pos_);
  t.str = std::string("unexpected character '") + c + "'";
  return t;
}

Token HloLexer::ReadRawWord() {
  if (has_peek_) {
    pos_ = peek_.pos;
    has_peek_ = false;
  }
  bool error = false;
  SkipSpaceAndComments(&error);
  const int64_t start = pos_;
  const int64_t n = text_.size();
  while (pos_ < n) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '{' || c == '}' ||
        c == '(' || c == ')' || c == '[' || c == ']') {
      break;
    }
    ++pos_;
  }
  return Make(pos_ > start ? TokKind::kIdent : TokKind::kError, start, pos_);
}

Token HloLexer::ReadBalancedBraces() {
  if (has_peek_) {
    pos_ = peek_.pos;
    has_peek_ = false;
  }
  bool error = false;
  SkipSpaceAndComments(&error);
  const int64_t start = pos_;
  const int64_t n = text_.size();
  if (pos_ >= n || text_[pos_] != '{') {
    Token t = Make(TokKind::kError, start, start);
    t.str = "expected '{'";
    return t;
  }
  int64_t depth = 0;
  while (pos_ < n) {
    char c = text_[pos_];
    if (c == '"') {
      ++pos_;
      while (pos_ < n && text_[pos_] != '"') pos_ += (text_[pos_] == '\\') ? 2 : 1;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0) {
        ++pos_;
        Token t = Make(TokKind::kString, start, pos_);
        t.str = std::string(t.text);
        return t;
      }
    }
    ++pos_;
  }
  pos_ = n;
  Token t = Make(TokKind::kError, start, n);
  t.str = "unbalanced '{'";
  return t;
}

}  // namespace xla
