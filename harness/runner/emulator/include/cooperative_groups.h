// cudalab CPU backend: cooperative groups are not emulated.
#pragma once
#error "The cudalab CPU backend does not run cooperative groups (including grid-wide sync). Use __syncthreads() and the __shfl_*_sync / __ballot_sync intrinsics, or run this lab on a GPU with BACKEND=cuda."
