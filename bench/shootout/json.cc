// Copyright 2026 The Tessera Authors.

#include "bench/shootout/json.h"

#include <cmath>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace tessera {
namespace shootout {
namespace {

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {}

  absl::StatusOr<JsonValue> Document() {
    JsonValue value;
    if (!Value(&value, 0)) return Error();
    SkipSpace();
    if (pos_ != text_.size()) {
      error_ = "trailing characters after the document";
      return Error();
    }
    return value;
  }

 private:
  absl::Status Error() const {
    return absl::InvalidArgumentError(
        absl::StrFormat("JSON error at byte %d: %s", pos_, error_));
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Fail(const char* why) {
    error_ = why;
    return false;
  }
  bool Literal(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return Fail("bad literal");
    pos_ += word.size();
    return true;
  }
  bool String(std::string* out) {
    ++pos_;  // opening quote
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '"') return true;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) break;
      char e = text_[pos_++];
      switch (e) {
        case 'n': out->push_back('\n'); break;
        case 't': out->push_back('\t'); break;
        case 'r': out->push_back('\r'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'u': {
          if (pos_ + 4 > text_.size()) return Fail("short \\u escape");
          unsigned code = std::strtoul(
              std::string(text_.substr(pos_, 4)).c_str(), nullptr, 16);
          pos_ += 4;
          out->push_back(code < 0x80 ? static_cast<char>(code) : '?');
          break;
        }
        default: out->push_back(e);
      }
    }
    return Fail("unterminated string");
  }
  bool Value(JsonValue* v, int depth) {
    if (depth > 64) return Fail("nesting too deep");
    SkipSpace();
    if (pos_ >= text_.size()) return Fail("unexpected end of input");
    const char c = text_[pos_];
    if (c == '{') {
      v->type = JsonValue::Type::kObject;
      ++pos_;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return true;
      }
      while (true) {
        SkipSpace();
        if (pos_ >= text_.size() || text_[pos_] != '"') {
          return Fail("expected a member name");
        }
        std::string key;
        if (!String(&key)) return false;
        SkipSpace();
        if (pos_ >= text_.size() || text_[pos_] != ':') {
          return Fail("expected ':'");
        }
        ++pos_;
        JsonValue member;
        if (!Value(&member, depth + 1)) return false;
        v->object.emplace_back(std::move(key), std::move(member));
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == '}') {
          ++pos_;
          return true;
        }
        return Fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v->type = JsonValue::Type::kArray;
      ++pos_;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return true;
      }
      while (true) {
        JsonValue element;
        if (!Value(&element, depth + 1)) return false;
        v->array.push_back(std::move(element));
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == ']') {
          ++pos_;
          return true;
        }
        return Fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v->type = JsonValue::Type::kString;
      return String(&v->string);
    }
    if (c == 't') {
      v->type = JsonValue::Type::kBool;
      v->boolean = true;
      return Literal("true");
    }
    if (c == 'f') {
      v->type = JsonValue::Type::kBool;
      return Literal("false");
    }
    if (c == 'n') return Literal("null");
    const std::string rest(text_.substr(pos_, 64));
    char* end = nullptr;
    v->number = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str()) return Fail("expected a value");
    v->type = JsonValue::Type::kNumber;
    pos_ += static_cast<size_t>(end - rest.c_str());
    return true;
  }

  absl::string_view text_;
  size_t pos_ = 0;
  const char* error_ = "";
};

}  // namespace

const JsonValue* JsonValue::Find(absl::string_view key) const {
  for (const auto& [name, value] : object) {
    if (name == key) return &value;
  }
  return nullptr;
}

absl::StatusOr<JsonValue> ParseJson(absl::string_view text) {
  return Parser(text).Document();
}

std::string JsonQuote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out.push_back(c);
        }
    }
  }
  out += "\"";
  return out;
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  return absl::StrFormat("%.10g", v);
}

}  // namespace shootout
}  // namespace tessera
