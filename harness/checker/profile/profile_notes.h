// The CPU backend's profile notes of the last calls (profile_figures.h reads them): lab_call.cpp
// keeps every reply's, as received, before the report's own words are made of the rest.
#pragma once
#include <string>
#include <vector>

namespace cudalab {

void keep_profile_notes(const std::vector<std::string>& notes);  // those that start "cudalab: profile "
std::vector<std::string> take_profile_notes();  // and forget them

}  // namespace cudalab
