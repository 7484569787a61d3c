#pragma once
// The rewriting of an extracted answer into the LaTeX subset that math/math_latex_parser
// reads, and the comparison key of a text answer.

#include <string>
#include <string_view>

namespace adarl {

/// `answer` with what does not change its value removed or spelled one way:
/// - wrappers of the whole answer: `$...$`, `$$...$$`, `\(...\)`, `\[...\]`, `\boxed{}`;
/// - sizing and spacing: `\left`, `\right` (and their null delimiter "."), `\big`...,
///   `\displaystyle`, `\!`, `\,`, `\;`, `\:`, `\ `, `~`, `\quad` (also glued to the letters after it, "\quadx"; a space is kept only
///   between two letters, so "1\,000" is "1000");
/// - one spelling: `\dfrac`/`\tfrac`/`\cfrac` -> `\frac`, `\dbinom`/`\tbinom` -> `\binom`,
///   `\lvert`/`\rvert` -> `|`, `\lbrace` -> `\{`, `\langle` -> `(`; Unicode −, ×, ·, ÷, ≤,
///   ≥, ≠, ∞, π, √, ∪, ±, ∈ as their LaTeX commands;
/// - degrees (`^\circ`, `^{\circ}`, °, `\degree`) as one marker `\circ` after the angle
///   (the reader drops it, or converts to radians inside \sin, \cos, ...);
/// - percent signs (`\%`, `%`) and currency signs (`\$`, `$`, €, £, ¥, ₹, `\euro`, `\pounds`);
/// - thousands separators outside brackets: "1,000", "14{,}916", "1 000" (a group is
///   exactly three digits after one to three leading digits not starting with 0);
/// - trailing '.', ',', ';', ':' (not an ellipsis "...") and surplus blanks;
/// - boxes found together ("\boxed{1} and \boxed{2}", math_extract.hpp) as a list "1, 2";
/// - ",\!" then blanks as a thousands separator ("11,\! 111" is 11111);
/// - `\textnormal`, `\textup` as `\text`.
/// Unit words after a number ("5 cm", "12 \text{ inches}") are left to the parser.
/// Pure; O(answer length).
std::string normalize_math_answer(std::string_view answer);

/// The key text answers are compared by: `\text{}`-like commands and braces removed,
/// ASCII lower case, no blanks, no trailing '.', and "(c)" for one character c as "c"
/// (so "\text{(B)}" == "b"). Pure; O(text length).
std::string math_text_key(std::string_view normalized);

/// Number of blank-separated words of `text` (how the verifier tells a short text answer
/// from prose). Pure; O(text length).
std::size_t math_word_count(std::string_view text);

}  // namespace adarl
