#pragma once
#error "The cudalab CPU backend does not emulate tensor cores (mma.h / wmma). Run this lab on a GPU with BACKEND=cuda."
