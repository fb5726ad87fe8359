// cudalab CPU backend: cooperative groups, on the emulator's own barriers and warp operations.
//
// A thread_block's sync() is __syncthreads(). A tile of N threads (N a power of two up to 32)
// never straddles a warp: its lanes are the N-lane slice of the warp the calling thread sits
// in, so its sync, shuffles and votes are the emulator's warp operations under that slice's
// mask, and a tile whose lanes do not all get there is diagnosed like a __shfl_sync would be.
// Every operation takes the caller's file and line as defaults, so the emulator's diagnostics
// name the student's line, not this header's.
//
// What the CPU backend cannot run is refused where it is used, with a message, never for
// being included: a grid-wide sync (the emulator runs a block to its end before another takes
// its worker's place, so no block could wait for all the others), coalesced_threads() (the
// emulator does not track which lanes took a branch), and tiles of more than one warp.
#pragma once
#include "cuda_runtime.h"

#define CUDALAB_CPU_GRID_SYNC_REFUSED                                                                           \
  "a grid-wide sync cannot run on the CPU backend: it waits for every block of the launch at once, and the "    \
  "emulator runs a block to its end before the next takes its place; run on a GPU with BACKEND=cuda, or split " \
  "the kernel into two launches (the end of a launch is a grid-wide sync)"

namespace cooperative_groups {
namespace details {

// False for every type, but only once instantiated: a static_assert on it fires only where the
// refused template is used.
template <class>
inline constexpr bool refused = false;

// Refused operations return one of these: the static_assert fires while the call's return
// type is worked out, at the student's line, before any error that follows from it.
template <class Never>
struct grid_sync_refused {
  static_assert(refused<Never>, CUDALAB_CPU_GRID_SYNC_REFUSED);
  using type = void;
};
template <class Never, class Group>
struct coalesced_threads_refused {
  static_assert(refused<Never>,
                "coalesced_threads() cannot run on the CPU backend: the emulator does not track which lanes of a "
                "warp took a branch; use tiled_partition<32>(this_thread_block()) with ballot() and shfl(), or run "
                "on a GPU with BACKEND=cuda");
  using type = Group;
};

inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned block_rank() { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }

constexpr bool valid_tile_size(unsigned n) { return n >= 1 && n <= 32 && (n & (n - 1)) == 0; }

// The first lane of the calling thread's tile of `size` threads within its warp.
inline unsigned tile_base_lane(unsigned size) { return block_rank() & 31 & ~(size - 1); }

// The lanes of the calling thread's tile: what its warp operations name as their mask.
inline unsigned tile_mask(unsigned size) {
  unsigned lanes = size == 32 ? ~0u : (1u << size) - 1;
  return lanes << tile_base_lane(size);
}

// Threads in the calling thread's tile: `size`, or fewer in a block's last, partial tile.
inline unsigned tile_threads(unsigned size) {
  unsigned first = block_rank() & ~(size - 1);
  return block_threads() - first < size ? block_threads() - first : size;
}

// A value through a warp exchange (`word` moves 8 bytes): larger values go as several
// exchanges of 8 bytes each, as CUDA splits them too. A value read from volatile memory
// (a lockstep reference) is exchanged as the value it reads.
template <class T, class Word>
inline cudalab_cpu::lockstep_value_t<T> exchange(const T& value, Word word) {
  using V = cudalab_cpu::lockstep_value_t<T>;
  static_assert(std::is_trivially_copyable_v<V>, "a tile can only shuffle trivially copyable values");
  V v = value;
  if constexpr (sizeof(V) <= 8) {
    return cudalab_cpu::from_bits<V>(word(cudalab_cpu::to_bits(v)));
  } else {
    uint64_t words[(sizeof(V) + 7) / 8] = {};
    std::memcpy(words, &v, sizeof(V));
    for (uint64_t& w : words) w = word(w);
    std::memcpy(&v, words, sizeof(V));
    return v;
  }
}

}  // namespace details

// Any group of threads of one block: the whole block, or a tile of it. A thread_block or a
// tile converts to one (as in CUDA), keeping what it is: sync() and thread_rank() work on it.
class thread_group {
 public:
  unsigned long long num_threads() const { return tile_ ? details::tile_threads(tile_) : details::block_threads(); }
  unsigned long long size() const { return num_threads(); }
  unsigned long long thread_rank() const { return details::block_rank() & (tile_ ? tile_ - 1 : ~0u); }
  void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    if (tile_)
      __syncwarp(details::tile_mask(tile_), file, line);
    else
      __syncthreads(file, line);
  }

 protected:
  explicit thread_group(unsigned tile) : tile_(tile) {}
  unsigned tile_;  // 0: the whole block; else the threads per tile, a power of two up to 32

  friend thread_group tiled_partition(const thread_group& parent, unsigned tile_size, const char* file, int line);
};

class thread_block : public thread_group {
 public:
  static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) { __syncthreads(file, line); }
  static unsigned num_threads() { return details::block_threads(); }
  static unsigned size() { return num_threads(); }
  static unsigned thread_rank() { return details::block_rank(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 dim_threads() { return blockDim; }
  static dim3 group_dim() { return blockDim; }

 private:
  thread_block() : thread_group(0) {}
  friend thread_block this_thread_block();
};

inline thread_block this_thread_block() { return thread_block(); }

// The whole grid. Its indices and sizes work in any launch (a grid-stride loop over
// thread_rank() and size(), say); its sync() is refused where a kernel calls it.
class grid_group {
 public:
  // Only a cooperative launch makes a valid grid group, and the CPU backend has none.
  static bool is_valid() { return false; }
  template <class Never = void>
  typename details::grid_sync_refused<Never>::type sync() const {}
  static unsigned long long num_blocks() { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
  static unsigned long long block_rank() {
    return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  }
  static unsigned long long num_threads() { return num_blocks() * details::block_threads(); }
  static unsigned long long size() { return num_threads(); }
  static unsigned long long thread_rank() { return block_rank() * details::block_threads() + details::block_rank(); }
  static dim3 dim_blocks() { return gridDim; }
  static dim3 group_dim() { return gridDim; }
  static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 dim_threads() { return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z); }
  static dim3 thread_index() {
    return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                blockIdx.z * blockDim.z + threadIdx.z);
  }
};

inline grid_group this_grid() { return grid_group(); }

template <unsigned Size, class Parent = void>
class thread_block_tile;

// A tile of Size threads; thread_block_tile<Size, Parent> (what tiled_partition<Size> returns)
// converts to it.
template <unsigned Size>
class thread_block_tile<Size, void> : public thread_group {
  static_assert(details::valid_tile_size(Size),
                "a thread_block_tile has 1, 2, 4, 8, 16 or 32 threads on the CPU backend (tiles of several warps "
                "run on a GPU only, BACKEND=cuda)");

 public:
  static constexpr unsigned num_threads() { return Size; }
  static constexpr unsigned size() { return Size; }
  static unsigned thread_rank() { return details::block_rank() & (Size - 1); }
  unsigned meta_group_rank() const { return meta_group_rank_; }
  unsigned meta_group_size() const { return meta_group_size_; }

  static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) { __syncwarp(mask(), file, line); }

  template <class T>
  auto shfl(const T& v, int src_rank, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return exchange(cudalab_cpu::kShflIdx, v, src_rank, file, line);
  }
  template <class T>
  auto shfl_down(const T& v, unsigned delta, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return exchange(cudalab_cpu::kShflDown, v, int(delta), file, line);
  }
  template <class T>
  auto shfl_up(const T& v, unsigned delta, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return exchange(cudalab_cpu::kShflUp, v, int(delta), file, line);
  }
  template <class T>
  auto shfl_xor(const T& v, unsigned lane_mask, const char* file = __builtin_FILE(),
                int line = __builtin_LINE()) const {
    return exchange(cudalab_cpu::kShflXor, v, int(lane_mask), file, line);
  }

  // Votes: bit r of ballot() is the tile's thread of rank r, as in CUDA.
  unsigned ballot(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return vote(predicate != 0, file, line) >> details::tile_base_lane(Size);
  }
  int any(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return vote(predicate != 0, file, line) != 0;
  }
  // Every thread voted yes when no thread voted no.
  int all(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return vote(predicate == 0, file, line) == 0;
  }
  template <class T>
  unsigned match_any(T v, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return __match_any_sync(mask(), v, file, line) >> details::tile_base_lane(Size);
  }
  template <class T>
  unsigned match_all(T v, int& pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return __match_all_sync(mask(), v, &pred, file, line) >> details::tile_base_lane(Size);
  }

 protected:
  thread_block_tile(unsigned meta_group_rank, unsigned meta_group_size)
      : thread_group(Size), meta_group_rank_(meta_group_rank), meta_group_size_(meta_group_size) {}

 private:
  static unsigned mask() { return details::tile_mask(Size); }
  template <class T>
  static auto exchange(int op, const T& v, int arg, const char* file, int line) {
    return details::exchange(
        v, [&](uint64_t word) { return cudalab_cpu::warp_collective(op, mask(), word, arg, int(Size), file, line); });
  }
  static unsigned vote(bool yes, const char* file, int line) {
    return unsigned(cudalab_cpu::warp_collective(cudalab_cpu::kBallot, mask(), yes, 0, 32, file, line));
  }

  unsigned meta_group_rank_, meta_group_size_;
};

// What tiled_partition<Size>(parent) returns: the tile of the calling thread, numbered among
// its parent's tiles (meta_group_rank) as in CUDA.
template <unsigned Size, class Parent>
class thread_block_tile : public thread_block_tile<Size, void> {
 public:
  explicit thread_block_tile(const Parent& parent)
      : thread_block_tile<Size, void>(unsigned(parent.thread_rank()) / Size,
                                      (unsigned(parent.num_threads()) + Size - 1) / Size) {}
};

// Tiles of a block, or smaller tiles of a tile.
template <unsigned Size>
inline thread_block_tile<Size, thread_block> tiled_partition(const thread_block& parent) {
  return thread_block_tile<Size, thread_block>(parent);
}
template <unsigned Size, unsigned ParentSize, class GrandParent>
inline thread_block_tile<Size, thread_block_tile<ParentSize, GrandParent>> tiled_partition(
    const thread_block_tile<ParentSize, GrandParent>& parent) {
  static_assert(Size < ParentSize, "tiled_partition<Size>(tile): Size must be smaller than the tile's");
  return thread_block_tile<Size, thread_block_tile<ParentSize, GrandParent>>(parent);
}

// A tile whose size is known only at run time: a thread_group, with sync(), thread_rank() and
// size() (as in CUDA). A size that is not a power of two up to 32, or larger than the parent
// tile, stops the kernel, as a GPU's does.
inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size, const char* file = __builtin_FILE(),
                                    int line = __builtin_LINE()) {
  if (!details::valid_tile_size(tile_size) || (parent.tile_ && tile_size > parent.tile_)) {
    std::fprintf(stderr, "cudalab: %s:%d: tiled_partition(group, %u): a tile has 1, 2, 4, 8, 16 or 32 threads%s\n",
                 file, line, tile_size, parent.tile_ ? ", no more than the group it is cut from" : "");
    __trap(file, line);
  }
  return thread_group(tile_size);
}

// The calling thread alone.
inline thread_block_tile<1> this_thread() { return tiled_partition<1>(this_thread_block()); }

class coalesced_group {};
template <class Never = void>
inline typename details::coalesced_threads_refused<Never, coalesced_group>::type coalesced_threads() {
  return {};
}

// The free functions CUDA has beside the members.
template <class Group>
inline void sync(const Group& g, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if constexpr (std::is_same_v<Group, grid_group>)
    g.sync();
  else
    g.sync(file, line);
}
template <class Group>
inline unsigned long long thread_rank(const Group& g) {
  return g.thread_rank();
}
template <class Group>
inline unsigned long long group_size(const Group& g) {
  return g.num_threads();
}

}  // namespace cooperative_groups
