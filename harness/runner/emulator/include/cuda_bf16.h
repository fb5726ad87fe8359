#pragma once
#error \
    "The cudalab CPU backend does not emulate half-precision types (cuda_bf16.h). Use float, or run this lab on a GPU with BACKEND=cuda."
