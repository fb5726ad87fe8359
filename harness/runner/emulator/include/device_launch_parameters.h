// cudalab CPU backend: threadIdx, blockIdx, blockDim, gridDim and warpSize come from cuda_runtime.h.
#pragma once
#include "cuda_runtime.h"
