// A GPU's profile (PROFILE=1 on a GPU, tools/gpu/gpu_profile.sh): Nsight Compute's raw CSV page
// (`ncu --import R --csv --page raw --print-units base`) read into the figures the digest reads
// (profile_figures.h), one KernelFigures per kernel name (its launches added up). A GPU counts per
// kernel, not per line: its figures carry one line of each kind, placed at the kernel.
#pragma once
#include <string>
#include <vector>

#include "profile_figures.h"

namespace cudalab {

// `skip`: kernel names that are the harness's own (the runner's fills and guards), not the lab's;
// kernels of a process whose name does not hold "runner" (the checker's references) are left out too.
ProfileFigures read_ncu_csv(const std::string& csv_text, const std::vector<std::string>& skip);

}  // namespace cudalab
