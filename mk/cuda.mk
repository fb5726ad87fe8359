# The GPU build: harness library, lab binaries, compiled with nvcc for one architecture.

NVCC ?= nvcc
# Through symlinks first: for a linked nvcc (/usr/bin/nvcc -> /opt/cuda/bin/nvcc, say) the
# toolkit, and its include/, is where the link points, not /usr.
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(realpath $(shell command -v $(NVCC) 2>/dev/null)))
ifeq ($(origin ARCH), undefined)
  ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d '.[:space:]')
  ifeq ($(ARCH),)
    ARCH := $(DEFAULT_ARCH)
  endif
endif

CUDA_OUT := build/cuda
INCLUDES := -Iharness/include -Iharness/core -Iharness/gpu
# -Wno-restrict: GCC 12 warns falsely on std::string concatenation (GCC bug 105329).
CXXFLAGS_COMMON := -std=c++20 -O2 -Wall -Wextra -Wno-restrict
NVCCFLAGS := -std=c++20 -O3 -lineinfo -gencode arch=compute_$(ARCH),code=[sm_$(ARCH),compute_$(ARCH)] \
             $(INCLUDES) -Xcompiler -Wall -MMD -MP
HOST_CXX := g++ $(CXXFLAGS_COMMON) $(INCLUDES) -isystem $(CUDA_HOME)/include -MMD -MP

CORE_SRCS := $(filter-out harness/core/main.cpp,$(wildcard harness/core/*.cpp))
GPU_SRCS := $(wildcard harness/gpu/*.cu)
CUDA_LIB := $(CUDA_OUT)/lib/libcudalab.a
CUDA_CORE_OBJS := $(patsubst harness/%.cpp,$(CUDA_OUT)/%.o,$(CORE_SRCS))
CUDA_GPU_OBJS := $(patsubst harness/%.cu,$(CUDA_OUT)/%.o,$(GPU_SRCS))
CUDA_MAIN := $(CUDA_OUT)/core/main.o
CUDA_LINK := -lcublas

$(CUDA_OUT)/%.o: harness/%.cpp
	@mkdir -p $(@D)
	$(HOST_CXX) -c $< -o $@
$(CUDA_OUT)/%.o: harness/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
$(CUDA_LIB): $(CUDA_CORE_OBJS) $(CUDA_GPU_OBJS)
	@mkdir -p $(@D)
	ar rcs $@ $^

# One lab: its checks (plain C++) and its timing (CUDA).
cuda_suite_objs = $(CUDA_OUT)/suites/lab$(1)_checks.o $(CUDA_OUT)/suites/lab$(1)_timing.o

$(CUDA_OUT)/labs/lab%.o: $$(wildcard labs/lab$$*_*.cu)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -DCUDALAB_SOURCE_FILE='"$<"' -c $< -o $@
$(CUDA_OUT)/solutions/lab%.o: $$(wildcard solutions/lab$$*_*.cu)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -DCUDALAB_SOURCE_FILE='"$<"' -c $< -o $@
$(CUDA_OUT)/labs/lab%: $(CUDA_OUT)/labs/lab%.o $$(call cuda_suite_objs,$$*) $(CUDA_MAIN) $(CUDA_LIB)
	$(NVCC) $(NVCCFLAGS) $^ $(CUDA_LINK) -o $@
$(CUDA_OUT)/solutions/lab%: $(CUDA_OUT)/solutions/lab%.o $$(call cuda_suite_objs,$$*) $(CUDA_MAIN) $(CUDA_LIB)
	$(NVCC) $(NVCCFLAGS) $^ $(CUDA_LINK) -o $@

cuda-lab-binary: $$(call cuda_suite_objs,$$(LAB)) $(CUDA_MAIN) $(CUDA_LIB)
	@test -n "$(LAB)" -a -n "$(SRC)" -a -n "$(OUT)" || { echo "usage: make lab-binary LAB=3 SRC=file.cu OUT=binary"; exit 2; }
	@mkdir -p $(dir $(OUT))
	$(NVCC) $(NVCCFLAGS) -DCUDALAB_SOURCE_FILE='"$(SRC)"' -c $(SRC) -o $(OUT).o
	$(NVCC) $(NVCCFLAGS) $(OUT).o $^ $(CUDA_LINK) -o $(OUT)

# Compile everything (CI does this with no GPU).
cuda-build-all: $(foreach n,$(LABS),$(CUDA_OUT)/labs/lab$(n) $(CUDA_OUT)/solutions/lab$(n))

.SECONDARY:
-include $(shell find $(CUDA_OUT) -name '*.d' 2>/dev/null)
