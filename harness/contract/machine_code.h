// Rules on the object's machine code, read with binutils' objdump (there wherever a compiler is):
//   * host code that makes system calls itself: a `syscall`, `sysenter` or `int $0x80`
//     instruction. A lab file's host code has nothing to ask the operating system (the runner's
//     seccomp filter refuses it anyway, harness/runner/syscall_filter.h; this names it before
//     anything runs, at its line);
//   * in the race detector's build (-fsanitize=thread): a function of the file that touches
//     memory without the detector's hooks, i.e. one that opted out (no_sanitize("thread"),
//     no_sanitize_thread, ...). The detector must see every access of the lab's kernels.
// Names play no part: the instructions are what the compiler (or an asm statement) produced.
#pragma once
#include <string>
#include <vector>

#include "contract_rules.h"

namespace cudalab::contract {

// Appends a Breach per function that breaks one of the rules above. Throws std::runtime_error
// when the object cannot be disassembled (the tool then cannot judge).
void judge_machine_code(const std::string& object_path, Build build, std::vector<Breach>& out);

}  // namespace cudalab::contract
