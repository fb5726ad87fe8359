// Text made safe to show: a student's text (names, messages, the runner's words) reaches a
// terminal, a CSV and Markdown only through these; and times written the one way the files use.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace grading {

// Text safe to show on a terminal, in a CSV or in Markdown: control bytes (escape sequences,
// carriage returns, backspaces, bidi overrides) become '?', newlines and tabs stay; invalid
// UTF-8 is left as bytes the reader shows as replacement characters.
std::string clean_text(std::string_view text);
// One line of it: newlines and tabs become spaces too.
std::string clean_line(std::string_view text);
// Cuts text to at most max_bytes on a line boundary where possible, with a note of what was cut.
std::string clip_text(std::string_view text, size_t max_bytes);

std::string now_utc_iso8601();
std::string human_seconds(double s);  // "1m 05s", "12s"

}  // namespace grading
