// Attack: an inline member function with the mangled name of one of the runner's, hoping the
// linker keeps this copy (a weak, COMDAT definition) for the runner too.
// expect-exit: 1
// expect-cause: defines_reserved_name
// expect-message: cudalab::run::EntryArgs::scalar
#include "cudalab/lab3.h"
namespace cudalab::run {
struct EntryArgs {
  long scalar(unsigned long i) const;
};
inline long EntryArgs::scalar(unsigned long) const { return 1; }
}  // namespace cudalab::run
__attribute__((used)) static long (cudalab::run::EntryArgs::*keep)(unsigned long) const = &cudalab::run::EntryArgs::scalar;
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) {
  if ((cudalab::run::EntryArgs{}.*keep)(0)) nothing<<<1, 1>>>();
}
}  // namespace lab3
