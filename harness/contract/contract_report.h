// The link contract's verdict in a student's words: each broken rule with the line of the lab
// file that uses the name (found in the source, since the object has no line numbers without
// debug information), why the lab forbids it and what to write instead.
#pragma once
#include <string>
#include <vector>

#include "contract_rules.h"

namespace cudalab::contract {

// The first line (1-based) of `source` that names `identifier` as a whole word outside a
// comment; 0 when none does (a name made by a macro, say).
int line_naming(const std::string& source_text, const std::string& identifier);

std::string format_breaches(const std::vector<Breach>& breaches, const LabContract& contract,
                            const std::string& source_path);

}  // namespace cudalab::contract
