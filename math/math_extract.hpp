#pragma once
// Where the math verifier finds the final answer in a completion (and in a reference
// that is a whole solution). Pure, no allocation.

#include <optional>
#include <string_view>
#include <vector>

namespace adarl {

/// Where math_verifier looks for the final answer in a completion.
enum class extraction {
  boxed,            ///< Content of the last `\boxed{...}` or `\fbox{...}` (braces nested).
  hashes,           ///< Rest of the line after the last `####` (GSM8K style).
  last_number,      ///< The last number in the text (see extract_math_answer).
  answer_is,        ///< What follows the last "answer is" / "answer:" (any case).
  math_delimiters,  ///< Content of the last `$...$`, `$$...$$`, `\(...\)` or `\[...\]`.
  whole,            ///< The whole completion when it is one short answer (see below).
};

/// The answer candidate `how` finds in `completion`, as a view into it; nullopt when it
/// finds nothing or only blanks.
/// - boxed: the content of the last `\boxed{` or `\fbox{` (blanks allowed before the
///   brace), when its braces balance (an unclosed last box finds nothing); `\boxed 5`
///   (one token, no braces) too. Boxes that list the parts of one answer
///   ("\boxed{1}, \boxed{2}", "\boxed{1} and \boxed{2}", "\boxed{a} \quad \text{and} \quad
///   \boxed{b}": see boxes_joinable) are found together, from the first box command to the
///   last closing brace; normalize_math_answer reads them as a list.
/// - hashes: the rest of the line after the last "####".
/// - answer_is: after the last "answer is" or "answer:" (any case; so also "The final
///   answer is" and "Final Answer:"), skipping ':' and blanks and a few filler words
///   ("therefore", "thus"): a `$...$`, `\(...\)`, `\[...\]` or `\boxed{}` there whole,
///   else the text up to the end of the line or of the sentence (a '.' followed by a
///   blank or the end, so "3.5" stays whole). After "answer:", a sentence that reads as
///   prose gives what follows its last word "is" (a math span there whole), else its last
///   math span, else its last number ("Final Answer: The largest $n$ is 34." gives "34").
/// - math_delimiters: the content of the last math span; `\$` is a dollar sign, not a
///   delimiter. A last `$...$` span that reads as prose (a word of three or more letters
///   outside commands and `\text{}`, as between two prices "$3 and then $") finds nothing.
/// - whole: the completion itself when it is one math span (`$...$`, `$$...$$`, `\(...\)`,
///   `\[...\]`, whatever it holds) or one line of at most 120 bytes without a math
///   delimiter, box or "####", and without a word of two or more letters outside commands
///   other than a function name ("\frac{10}{9}", "1 000", "x \ge 5"; not "so 1"), nor a
///   line of numbers side by side other than thousands groups and mixed numbers
///   ("4 4/9 2", "3 5": the last number decides).
/// - last_number: the last number token: digits with optional thousands groups, decimal
///   part and "/denominator", with a unary sign ("x=-5" gives "-5", "10-5" gives "5"); a
///   number glued to a preceding letter or '_' is part of a word and skipped ("x2", "H2O").
/// Pure, no allocation; O(completion length).
std::optional<std::string_view> extract_math_answer(std::string_view completion,
                                                    extraction how);

/// The candidate of the first method of `order` that finds one; nullopt when none does.
std::optional<std::string_view> extract_first(std::string_view completion,
                                              const std::vector<extraction>& order);

/// The answer a reference (item.answer) states: all of it when it is only "$...$" spans
/// joined by separators (see boxes_joinable: "$1$ and $2$", "$21,16$ or $11$", which
/// normalize_math_answer reads as a list); else the candidate of the first method of
/// `order` other than last_number that finds one (a whole solution "... \boxed{1}" or
/// "... #### 72"), else the whole reference trimmed of blanks (a bare answer such as
/// "\frac{1}{2}", whose last number is not its value). Pure; O(reference length).
std::string_view extract_reference(std::string_view reference,
                                   const std::vector<extraction>& order);

/// True when the text between two boxes, `gap`, joins them into one answer: blanks only,
/// or a separator (',', ';', "and", "or") with at most four words, none of them one that
/// moves on to a conclusion ("so", "thus", "then", "but", "not", "is", ...), at most one
/// line break and 60 bytes. Pure; O(gap length).
bool boxes_joinable(std::string_view gap);

/// True when a `$...$` span's content reads as prose rather than math (see
/// math_delimiters above). Pure; O(content length).
bool reads_as_prose(std::string_view content);

}  // namespace adarl
