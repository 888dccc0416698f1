// Copyright 2026 The Tessera Authors.
//
// A port of NumPy 1.24's arrayprint.py for the default options: the float
// formatter (FloatingFormat.fillFormat and __call__), the integer and bool
// formatters, _leading_trailing summarisation and _formatArray's layout.
// Shortest round-trip digits come from std::to_chars, which gives the same
// digits as NumPy's Dragon4 in unique mode.

#include "tensor/print.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace tessera {
namespace {

// Elements of the C-order index space that are printed: per axis, all
// indices, or `edge` at each end when summarising and the axis is longer
// than 2 * edge.
std::vector<std::vector<int64_t>> ShownIndices(const Tensor& t,
                                               bool summarise, int64_t edge) {
  std::vector<std::vector<int64_t>> shown(static_cast<size_t>(t.ndim()));
  for (int k = 0; k < t.ndim(); ++k) {
    const int64_t n = t.shape(k);
    for (int64_t i = 0; i < n; ++i) {
      if (!summarise || 2 * edge >= n || i < edge || i >= n - edge) {
        shown[k].push_back(i);
      }
    }
  }
  return shown;
}

// The shown elements, in C order, converted to T (their own type).
template <typename T>
std::vector<T> ShownValues(const Tensor& t,
                           const std::vector<std::vector<int64_t>>& shown) {
  std::vector<T> values;
  const int nd = t.ndim();
  for (const auto& axis : shown) {
    if (axis.empty()) return values;
  }
  std::vector<size_t> pos(static_cast<size_t>(nd), 0);
  while (true) {
    const char* p = static_cast<const char*>(t.data());
    for (int k = 0; k < nd; ++k) p += shown[k][pos[k]] * t.strides()[k];
    T v;
    std::memcpy(&v, p, sizeof(T));
    values.push_back(v);
    int k = nd - 1;
    for (; k >= 0; --k) {
      if (++pos[k] < shown[k].size()) break;
      pos[k] = 0;
    }
    if (k < 0) return values;
  }
}

std::string RStrip(absl::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

template <typename T>
std::string ToChars(T x, std::chars_format format, int precision = -1) {
  char buf[512];
  const auto r = precision < 0
                     ? std::to_chars(buf, buf + sizeof(buf), x, format)
                     : std::to_chars(buf, buf + sizeof(buf), x, format,
                                     precision);
  return std::string(buf, r.ptr);
}

// The shortest text in `format` that reads back as the float16 `x` (what
// Dragon4's unique mode gives for float16: float16(0.1) is "0.1", where its
// float32 value would print 0.099975586). Every float16 is exact in double,
// so the candidates are the correctly rounded double texts.
std::string Float16Chars(float x, std::chars_format format,
                         int precision = -1) {
  if (precision >= 0) return ToChars(static_cast<double>(x), format, precision);
  const uint16_t bits = FloatToFloat16Bits(x);
  std::string text;
  for (int p = 0; p <= 40; ++p) {
    text = ToChars(static_cast<double>(x), format, p);
    if (DoubleToFloat16Bits(std::strtod(text.c_str(), nullptr)) == bits) break;
  }
  return text;
}

// Digits of a finite value split at the decimal point (and the exponent,
// for scientific notation), as Dragon4 in unique mode with at most
// `precision` fractional digits and trailing zeros trimmed.
struct Digits {
  std::string integer;   // with the sign
  std::string fraction;  // possibly empty
  std::string exponent;  // "+05" style, scientific only
};

Digits SplitDigits(const std::string& text) {
  Digits d;
  std::string mantissa = text;
  const size_t e = text.find('e');
  if (e != std::string::npos) {
    mantissa = text.substr(0, e);
    d.exponent = text.substr(e + 1);
  }
  const size_t dot = mantissa.find('.');
  d.integer = mantissa.substr(0, dot);
  if (dot != std::string::npos) d.fraction = mantissa.substr(dot + 1);
  while (!d.fraction.empty() && d.fraction.back() == '0') {
    d.fraction.pop_back();
  }
  return d;
}

// kHalf: `x` is a float16 value (held as float) and takes float16's digits.
template <typename T, bool kHalf = false>
Digits FloatDigits(T x, bool scientific, int precision) {
  const std::chars_format format =
      scientific ? std::chars_format::scientific : std::chars_format::fixed;
  if constexpr (kHalf) {
    Digits d = SplitDigits(Float16Chars(x, format));
    if (static_cast<int>(d.fraction.size()) > precision) {
      d = SplitDigits(Float16Chars(x, format, precision));
    }
    return d;
  }
  Digits d = SplitDigits(ToChars(x, format));
  if (static_cast<int>(d.fraction.size()) > precision) {
    d = SplitDigits(ToChars(x, format, precision));
  }
  return d;
}

// NumPy's FloatingFormat with floatmode "maxprec", sign "-". kHalf: the
// values are float16 ones held as float (FloatDigits).
template <typename T, bool kHalf = false>
class FloatFormat {
 public:
  FloatFormat(const std::vector<T>& data, int precision) {
    std::vector<T> finite;
    bool any_nonfinite = false, negative_inf = false;
    for (T x : data) {
      if (std::isfinite(x)) {
        finite.push_back(x);
      } else {
        any_nonfinite = true;
        if (std::isinf(x) && x < 0) negative_inf = true;
      }
    }
    T max_val = 0, min_val = 0;
    bool any_nonzero = false;
    for (T x : finite) {
      if (x == 0) continue;
      const T a = std::fabs(x);
      max_val = any_nonzero ? std::max(max_val, a) : a;
      min_val = any_nonzero ? std::min(min_val, a) : a;
      any_nonzero = true;
    }
    if (any_nonzero &&
        (max_val >= T(1e8) || min_val < T(0.0001) || max_val / min_val > 1000)) {
      scientific_ = true;
    }
    if (finite.empty()) {
      pad_left_ = 0;
      pad_right_ = 0;
    } else if (scientific_) {
      size_t exp_size = 0;
      for (T x : finite) {
        const Digits d = FloatDigits<T, kHalf>(x, true, precision);
        exp_size = std::max(exp_size, d.exponent.size() - 1);
        precision_ = std::max(precision_, static_cast<int>(d.fraction.size()));
        pad_left_ = std::max(pad_left_, static_cast<int>(d.integer.size()));
      }
      exp_size_ = static_cast<int>(exp_size);
      pad_right_ = exp_size_ + 2 + precision_;
      max_fraction_ = precision;
    } else {
      for (T x : finite) {
        const Digits d = FloatDigits<T, kHalf>(x, false, precision);
        pad_left_ = std::max(pad_left_, static_cast<int>(d.integer.size()));
        pad_right_ = std::max(pad_right_, static_cast<int>(d.fraction.size()));
      }
      max_fraction_ = precision;
    }
    if (any_nonfinite) {
      const int offset = pad_right_ + 1;
      const int inf_len = 3 + (negative_inf ? 1 : 0);
      pad_left_ = std::max({pad_left_, 3 - offset, inf_len - offset});
    }
  }

  std::string operator()(T x) const {
    if (!std::isfinite(x)) {
      const std::string text = std::isnan(x) ? "nan" : (x < 0 ? "-inf" : "inf");
      const int width = pad_left_ + pad_right_ + 1;
      return std::string(
                 static_cast<size_t>(std::max(0, width -
                                                     static_cast<int>(text.size()))),
                 ' ') +
             text;
    }
    const Digits d = FloatDigits<T, kHalf>(x, scientific_, max_fraction_);
    std::string out(static_cast<size_t>(std::max(
                        0, pad_left_ - static_cast<int>(d.integer.size()))),
                    ' ');
    absl::StrAppend(&out, d.integer, ".", d.fraction);
    if (scientific_) {
      // Every element shows `precision_` digits, zero-filled, and an
      // exponent of `exp_size_` digits.
      out.append(static_cast<size_t>(precision_) - d.fraction.size(), '0');
      const char sign = d.exponent[0];
      std::string digits = d.exponent.substr(1);
      if (static_cast<int>(digits.size()) < exp_size_) {
        digits.insert(0, static_cast<size_t>(exp_size_) - digits.size(), '0');
      }
      absl::StrAppend(&out, "e", std::string(1, sign), digits);
    } else {
      out.append(static_cast<size_t>(pad_right_) - d.fraction.size(), ' ');
    }
    return out;
  }

 private:
  bool scientific_ = false;
  int pad_left_ = 0;
  int pad_right_ = 0;
  int precision_ = 0;     // scientific: fractional digits every element shows
  int exp_size_ = 0;      // scientific: exponent digits
  int max_fraction_ = 8;  // the print option: digits before rounding
};

// The formatted shown elements, in C order.
std::vector<std::string> FormatElements(const Tensor& t,
                                        const std::vector<std::vector<int64_t>>& shown,
                                        const PrintOptions& options) {
  std::vector<std::string> words;
  VisitDType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> values = ShownValues<T>(t, shown);
    if constexpr (kIsFloat16<T>) {
      std::vector<float> wide;
      for (Float16 v : values) wide.push_back(ToFloat(v));
      const FloatFormat<float, /*kHalf=*/true> format(wide, options.precision);
      for (float v : wide) words.push_back(format(v));
    } else if constexpr (std::is_same<T, bool>::value) {
      // " True" pads to the width of "False", except in a 0-d tensor.
      for (bool v : values) {
        words.push_back(v ? (t.ndim() == 0 ? "True" : " True") : "False");
      }
    } else if constexpr (std::is_floating_point<T>::value) {
      const FloatFormat<T> format(values, options.precision);
      for (T v : values) words.push_back(format(v));
    } else {
      size_t width = 0;
      for (T v : values) {
        words.push_back(std::to_string(v));
        width = std::max(width, words.back().size());
      }
      for (auto& w : words) w.insert(0, width - w.size(), ' ');
    }
  });
  return words;
}

// _formatArray: nested brackets, wrapping rows at the line width.
class Layout {
 public:
  Layout(const Tensor& t, const std::vector<std::string>& words,
         std::string separator, bool summarise, int64_t edge)
      : t_(t),
        words_(words),
        separator_(std::move(separator)),
        summarise_(summarise),
        edge_(edge) {}

  std::string Recurse(int axis, const std::string& hanging, int width) {
    const int axes_left = t_.ndim() - axis;
    if (axes_left == 0) return words_[next_++];
    const std::string next_hanging = hanging + " ";
    const int next_width = width - 1;
    const int64_t length = t_.shape(axis);
    const bool show_summary = summarise_ && 2 * edge_ < length;
    const int64_t leading = show_summary ? edge_ : 0;
    const int64_t trailing = show_summary ? edge_ : length;
    std::string s;
    if (axes_left == 1) {
      const int elem_width =
          width - std::max(static_cast<int>(RStrip(separator_).size()), 1);
      std::string line = hanging;
      for (int64_t i = 0; i < leading; ++i) {
        ExtendLine(s, line, Recurse(axis + 1, next_hanging, next_width),
                   elem_width, hanging);
        line += separator_;
      }
      if (show_summary) {
        ExtendLine(s, line, "...", elem_width, hanging);
        line += separator_;
      }
      for (int64_t i = trailing; i > 1; --i) {
        ExtendLine(s, line, Recurse(axis + 1, next_hanging, next_width),
                   elem_width, hanging);
        line += separator_;
      }
      ExtendLine(s, line, Recurse(axis + 1, next_hanging, next_width),
                 elem_width, hanging);
      s += line;
    } else {
      const std::string line_sep =
          RStrip(separator_) + std::string(static_cast<size_t>(axes_left - 1), '\n');
      for (int64_t i = 0; i < leading; ++i) {
        s += hanging + Recurse(axis + 1, next_hanging, next_width) + line_sep;
      }
      if (show_summary) s += hanging + "..." + line_sep;
      for (int64_t i = trailing; i > 1; --i) {
        s += hanging + Recurse(axis + 1, next_hanging, next_width) + line_sep;
      }
      s += hanging + Recurse(axis + 1, next_hanging, next_width);
    }
    return "[" + s.substr(hanging.size()) + "]";
  }

 private:
  // _extendLine: wrap before `word` when it would pass `width`, unless the
  // line holds nothing but the indent (wrapping would not help).
  static void ExtendLine(std::string& s, std::string& line,
                         const std::string& word, int width,
                         const std::string& next_prefix) {
    bool wrap = static_cast<int>(line.size() + word.size()) > width;
    if (line.size() <= next_prefix.size()) wrap = false;
    if (wrap) {
      s += RStrip(line) + "\n";
      line = next_prefix;
    }
    line += word;
  }

  const Tensor& t_;
  const std::vector<std::string>& words_;
  size_t next_ = 0;
  std::string separator_;
  bool summarise_;
  int64_t edge_;
};

// array2string(t, separator, prefix, suffix) for a non-empty tensor.
std::string ArrayToString(const Tensor& t, const PrintOptions& options,
                          const std::string& separator,
                          const std::string& prefix,
                          const std::string& suffix) {
  const bool summarise = t.size() > options.threshold;
  const auto shown = ShownIndices(t, summarise, options.edgeitems);
  const std::vector<std::string> words = FormatElements(t, shown, options);
  Layout layout(t, words, separator, summarise, options.edgeitems);
  return layout.Recurse(0, std::string(1 + prefix.size(), ' '),
                        options.linewidth - static_cast<int>(suffix.size()));
}

// str() of a NumPy scalar: shortest round-trip digits, positional with at
// least one fractional digit when 1e-4 <= |x| < 1e16 (or 0), else
// scientific without a trailing ".".
template <typename T, bool kHalf = false>
std::string ScalarFloatString(T x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  const T a = std::fabs(x);
  const auto chars = [](T v, std::chars_format format) {
    if constexpr (kHalf) return Float16Chars(v, format);
    return ToChars(v, format);
  };
  if (a == 0 || (a < T(1e16) && a >= T(1e-4))) {
    std::string s = chars(x, std::chars_format::fixed);
    if (s.find('.') == std::string::npos) s += ".0";
    return s;
  }
  return chars(x, std::chars_format::scientific);
}

}  // namespace

std::string repr(const Tensor& t, const PrintOptions& options) {
  const DType d = t.dtype();
  const bool implied =
      d == DType::kFloat64 || d == DType::kInt64 || d == DType::kBool;
  const bool skip_dtype = implied && t.size() > 0;
  const std::string prefix = "array(";
  const std::string suffix = skip_dtype ? ")" : ",";
  std::string body;
  if (t.size() > 0) {
    body = ArrayToString(t, options, ", ", prefix, suffix);
  } else if (t.ndim() == 1) {
    body = "[]";
  } else {
    body = absl::StrCat("[], shape=", ShapeString(t.shape()));
  }
  std::string out = prefix + body + suffix;
  if (skip_dtype) return out;
  const std::string dtype = absl::StrCat("dtype=", DTypeName(d), ")");
  const size_t last_newline = out.rfind('\n');
  const size_t last_line =
      out.size() - (last_newline == std::string::npos ? 0 : last_newline + 1);
  const bool own_line =
      static_cast<int>(last_line + dtype.size() + 1) > options.linewidth;
  return out + (own_line ? "\n" + std::string(prefix.size(), ' ') : " ") +
         dtype;
}

std::string str(const Tensor& t, const PrintOptions& options) {
  if (t.ndim() == 0) {
    return VisitDType(t.dtype(), [&](auto zero) -> std::string {
      using T = decltype(zero);
      T v;
      std::memcpy(&v, t.data(), sizeof(T));
      if constexpr (kIsFloat16<T>) {
        return ScalarFloatString<float, /*kHalf=*/true>(ToFloat(v));
      } else if constexpr (std::is_same<T, bool>::value) {
        return v ? "True" : "False";
      } else if constexpr (std::is_floating_point<T>::value) {
        return ScalarFloatString(v);
      } else {
        return std::to_string(v);
      }
    });
  }
  if (t.size() == 0) return "[]";
  return ArrayToString(t, options, " ", "", "");
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  return os << str(t);
}

}  // namespace tessera
