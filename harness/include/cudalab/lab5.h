// Lab 5 contract: the bounds-checked tiled matrix product.
#pragma once
#include "cudalab/launch_check.h"

namespace lab5 {

// One block of kTile x kTile threads computes one kTile x kTile tile of C.
constexpr int kTile = 32;

// C = A B, all row-major: A is M x K, B is K x N, C is M x N. Any M, N, K >= 1.
void matmul(const float* d_A, const float* d_B, float* d_C, int M, int N, int K);

}  // namespace lab5
