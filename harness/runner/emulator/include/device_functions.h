// cudalab CPU backend: device functions come from cuda_runtime.h.
#pragma once
#include "cuda_runtime.h"
