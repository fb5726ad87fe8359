// gradebook.csv: one row per student, one column per check, RFC 4180 quoting.
#include <sstream>

#include "scoring.h"
#include "safe_io/text.h"
#include "writers.h"

namespace grading {
namespace {

std::string csv(const std::string& raw) {
  const std::string field = clean_line(raw);  // a submission's bytes never reach the spreadsheet raw
  bool quote = field.find_first_of(",\"\n\r") != std::string::npos;
  // A leading =, +, - or @ would be read as a formula by spreadsheets: names are data.
  bool formula = !field.empty() && std::string("=+-@").find(field[0]) != std::string::npos;
  std::string s = formula ? "'" + field : field;
  if (!quote) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string gradebook_csv(const std::vector<StudentResult>& results, const Rubric& rubric,
                          const std::vector<std::string>& check_ids) {
  std::ostringstream o;
  o << "student,total,maximum,verdict,backend";
  for (const auto& id : check_ids) o << "," << csv(id);
  o << ",speed,speed_ratio,reason\n";
  for (const auto& r : results) {
    const Score s = score(r, rubric);
    o << csv(r.student) << "," << format_points(s.total) << "," << format_points(s.maximum) << "," << r.verdict << ","
      << r.backend;
    for (const auto& id : check_ids) {
      std::string cell = "";
      for (const auto& c : s.checks)
        if (c.id == id) cell = c.counted ? format_points(c.points) : "not graded";
      o << "," << cell;
    }
    char ratio[32] = "";
    if (s.speed.status == "graded") std::snprintf(ratio, sizeof ratio, "%.3f", s.speed.ratio);
    o << "," << (s.speed.counted ? format_points(s.speed.points) : "not graded") << "," << ratio << ","
      << csv(r.verdict == kGraded ? r.reason : r.reason.substr(0, 200)) << "\n";
  }
  return o.str();
}

}  // namespace grading
