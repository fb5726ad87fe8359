# Every kernel runner's link (the lab file with harness/runner): the lab's copies and fills reach
# the runtime only through the runner's checks (harness/runner/copy_check.h). `--wrap` binds the
# lab object's cudaMemcpy to __wrap_cudaMemcpy whatever the file wrote; the runner's own copies
# call __real_cudaMemcpy, the runtime's. (Its name sorts it before cpu.mk and cuda.mk, which the
# Makefile includes in order: cuda.mk's link line is expanded once, where it is set.)
RUNNER_WRAPPED := cudaMemcpy cudaMemcpyAsync cudaMemset cudaMemsetAsync
CPU_RUNNER_WRAP := $(foreach f,$(RUNNER_WRAPPED),-Wl,--wrap=$(f))
CUDA_RUNNER_WRAP := $(foreach f,$(RUNNER_WRAPPED),-Xlinker --wrap=$(f))
