// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: json.h
// -----------------------------------------------------------------------------
//
// The smallest JSON the shootout needs: a parser for what its children print
// and what its test reads back (objects, arrays, strings, numbers, true/false/
// null), and helpers for writing. Not a general-purpose library: no \u
// escapes beyond ASCII, numbers as double.

#ifndef TESSERA_BENCH_SHOOTOUT_JSON_H_
#define TESSERA_BENCH_SHOOTOUT_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {
namespace shootout {

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;  // in input order

  // The member named `key` of an object, or nullptr.
  const JsonValue* Find(absl::string_view key) const;
};

// Parses one JSON document (surrounding whitespace allowed). InvalidArgument
// naming the byte offset of the first error.
absl::StatusOr<JsonValue> ParseJson(absl::string_view text);

// `s` as a quoted JSON string.
std::string JsonQuote(absl::string_view s);
// `v` as a JSON number; NaN and infinities (which JSON lacks) become null.
std::string JsonNumber(double v);

}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_JSON_H_
