// cudalab CPU backend: the driver API is not emulated; the runtime API is (cuda_runtime.h).
#pragma once
#include "cuda_runtime.h"
