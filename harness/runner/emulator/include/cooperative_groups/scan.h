#pragma once
#error \
    "The cudalab CPU backend does not emulate cooperative_groups::inclusive_scan / exclusive_scan (cooperative_groups/scan.h). Scan with tile.shfl_up(), or run this lab on a GPU with BACKEND=cuda."
