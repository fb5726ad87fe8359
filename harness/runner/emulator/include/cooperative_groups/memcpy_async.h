#pragma once
#error \
    "The cudalab CPU backend does not emulate cooperative_groups::memcpy_async (cooperative_groups/memcpy_async.h). Copy with plain loads and stores and tile.sync() / block.sync(), or run this lab on a GPU with BACKEND=cuda."
