// Lab 4 contract: the padded-tile transpose.
#pragma once
#include "cudalab/launch_check.h"

namespace lab4 {

// Each block transposes one kTile x kTile tile with kTile x kBlockRows threads,
// so each thread moves kTile / kBlockRows elements.
constexpr int kTile = 32;
constexpr int kBlockRows = 8;

// d_in is rows x cols, row-major. Writes its transpose, cols x rows row-major, to d_out.
// Any rows, cols >= 1 (with rows * cols < 2^31).
void transpose(const float* d_in, float* d_out, int rows, int cols);

}  // namespace lab4
