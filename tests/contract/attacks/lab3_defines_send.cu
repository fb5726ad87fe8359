// Attack: define a C library function the runner uses to send its replies, and rewrite every
// reply frame on its way out. A lab file may not define a name of the C library.
// expect-exit: 1
// expect-cause: defines_reserved_name
// expect-message: send
#include <sys/types.h>
#include "cudalab/lab3.h"
extern "C" ssize_t send(int fd, const void* buf, size_t len, int flags) { return ssize_t(len); }
extern "C" ssize_t write(int fd, const void* buf, size_t len) { return ssize_t(len); }
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) { nothing<<<1, 1>>>(); }
}  // namespace lab3
