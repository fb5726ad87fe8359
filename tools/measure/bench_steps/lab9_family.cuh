// Lab 9's search space: one SGEMM kernel, C = A B (row-major, FP32, no tensor cores), as a
// template over everything the tuning ladder changes, so that the rungs and the tile-shape
// search are the same code measured the same way (lab9_search.cu times them all in one run).
//
//   BM x BN     the block's tile of C                BK       the slice of k per stage
//   WM x WN     one warp's tile of C                 TM x TN  one thread's patch of C (4 x 4 fragments)
//   STAGES      shared-memory buffers in the ring    MINB     blocks per SM asked of the register allocator
//   AMODE       how A reaches shared memory, transposed to As[k][m]:
//                 0  LDG.128 into registers one slice ahead, then four scalar stores (the lab's rung 5)
//                 1  cp.async, 4 bytes per element, straight into the transposed slot (sm_80+)
//   BMODE       how B reaches shared memory, as it is (Bs[k][n]):
//                 0  LDG.128 into registers one slice ahead, then a float4 store (rung 5)
//                 1  cp.async, 16 bytes (sm_80+)
//   SWZ         0: blocks in launch order; G > 0: consecutive blocks walk down groups of G block
//               rows, so the ones resident together share more of A and B in L2
//   FRAG        0: each k's fragments read from shared memory, then its FMAs; 1: double-buffered
//               fragments: k + 1's float4s read into a second set of registers during k's FMAs
//   KSPLIT      1: one block per tile of C; S > 1: split-K, S blocks per tile (gridDim.z), each
//               over its own range of slices, their sums added into C (zeroed first) by atomicAdd
//
// The ring: slices s + 1 .. s + STAGES - 1 are on their way while slice s is multiplied, one
// __syncthreads() per slice. Register-staged operands (mode 0) run one slice ahead whatever
// STAGES is; cp.async operands STAGES - 1 slices ahead. Aligned sizes only here (K % 4 == 0,
// N % 4 == 0: the search's shapes); the edges of M, N and K are handled (zero-filled loads,
// guarded stores), since the non-square shape has a partial last slice.
#pragma once
#include <cuda_runtime.h>

// cp.async through CUDA's pipeline primitives, where the device code is for sm_80 or later.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#include <cuda_pipeline.h>
#define LAB9_CP_ASYNC 1
#else
#define LAB9_CP_ASYNC 0
#endif

namespace lab9_family {

template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int AMODE_, int BMODE_,
          int SWZ_ = 0, int MINB_ = 2, int FRAG_ = 0, int KSPLIT_ = 1>
struct Cfg {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
  static constexpr int STAGES = STAGES_, AMODE = AMODE_, BMODE = BMODE_, SWZ = SWZ_, MINB = MINB_;
  static constexpr int FRAG = FRAG_, KSPLIT = KSPLIT_;
  static constexpr int kWarpsAcross = BN / WN;
  static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  static constexpr int LR = WM / TM;  // lanes down a warp tile
  static constexpr int LC = WN / TN;  // lanes across it
  // Rows of the transposed A tile padded by 4 floats: every row stays 16-byte aligned for the
  // float4 reads, and the transposed stores of neighbouring rows of A land in different banks.
  static constexpr int kAsRow = BM + 4;
  static constexpr int kAsFloats = BK * kAsRow, kBsFloats = BK * BN;
  static constexpr int kStageFloats = kAsFloats + kBsFloats;
  static constexpr size_t kSmemBytes = size_t(STAGES) * kStageFloats * sizeof(float);

  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile");
  static_assert(WM % TM == 0 && WN % TN == 0 && LR * LC == 32, "a warp's 32 lanes cover its tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "patches are made of 4 x 4 fragments");
  static_assert(BK % 4 == 0, "slices are whole float4s of A's rows");
  static_assert(STAGES >= 2, "at least double buffering");
  static_assert(kThreads <= 1024, "a block");
  static_assert(FRAG == 0 || FRAG == 1, "fragments single or double buffered");
  static_assert(KSPLIT >= 1, "split-K: blocks per tile");
};

// ---- Copies: asynchronous where the hardware has cp.async (sm_80+) ---------------------------
// __pipeline_memcpy_async is cp.async (16 bytes: .cg, bypassing L1); without it, a plain copy.
__device__ __forceinline__ void copy16(float* dst_shared, const float* src) {
#if LAB9_CP_ASYNC
  __pipeline_memcpy_async(dst_shared, src, 16);
#else
  *reinterpret_cast<float4*>(dst_shared) = *reinterpret_cast<const float4*>(src);
#endif
}
__device__ __forceinline__ void copy4(float* dst_shared, const float* src) {
#if LAB9_CP_ASYNC
  __pipeline_memcpy_async(dst_shared, src, 4);
#else
  *dst_shared = *src;
#endif
}
__device__ __forceinline__ void commit() {
#if LAB9_CP_ASYNC
  __pipeline_commit();
#endif
}
template <int kNewerGroups>
__device__ __forceinline__ void wait_prior() {
#if LAB9_CP_ASYNC
  __pipeline_wait_prior(kNewerGroups);
#endif
}

// ---- One slice's loads ----------------------------------------------------------------------
// Units of work are spread over the block's threads, consecutive threads on consecutive
// addresses of global memory (coalesced); when there are fewer units than threads the rest idle.
template <class C, int kUnits, class F>
__device__ __forceinline__ void for_units(F f) {
#pragma unroll
  for (int i = 0; i < (kUnits + C::kThreads - 1) / C::kThreads; ++i) {
    const int u = threadIdx.x + i * C::kThreads;
    if (kUnits % C::kThreads == 0 || u < kUnits) f(u, i);  // i: the unit's index in this thread's registers
  }
}

// The asynchronous part of slice k0 into one stage of the ring.
template <class C>
__device__ __forceinline__ void issue_async(const float* __restrict__ A, const float* __restrict__ B, int M, int N,
                                            int K, int row0, int col0, int k0, float* As, float* Bs) {
  if constexpr (C::BMODE == 1) {
    for_units<C, C::BK * C::BN / 4>([&](int u, int) {
      const int kr = u / (C::BN / 4), n = (u % (C::BN / 4)) * 4;
      const int gk = k0 + kr, gc = col0 + n;
      float* dst = Bs + kr * C::BN + n;
      if (gk < K && gc < N) copy16(dst, B + size_t(gk) * N + gc);  // N % 4 == 0: a float4 is all in or all out
      else *reinterpret_cast<float4*>(dst) = make_float4(0.f, 0.f, 0.f, 0.f);
    });
  }
  if constexpr (C::AMODE == 1) {
    // Element by element: consecutive threads along a row of A (coalesced reads), each into
    // its transposed slot As[k][m].
    for_units<C, C::BM * C::BK>([&](int e, int) {
      const int r = e / C::BK, kk = e % C::BK;
      const int gr = row0 + r, gk = k0 + kk;
      float* dst = As + kk * C::kAsRow + r;
      if (gr < M && gk < K) copy4(dst, A + size_t(gr) * K + gk);
      else *dst = 0.f;
    });
  }
}

// The register-staged part (modes 0): global -> registers now, registers -> shared later.
template <class C>
struct Staged {
  static constexpr int kA = C::AMODE == 0 ? (C::BM * C::BK / 4 + C::kThreads - 1) / C::kThreads : 0;
  static constexpr int kB = C::BMODE == 0 ? (C::BK * C::BN / 4 + C::kThreads - 1) / C::kThreads : 0;
  float4 a[kA > 0 ? kA : 1];
  float4 b[kB > 0 ? kB : 1];

  __device__ __forceinline__ void load(const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K,
                                       int row0, int col0, int k0) {
    if constexpr (C::AMODE == 0) {
      for_units<C, C::BM * C::BK / 4>([&](int u, int i) {
        const int r = u / (C::BK / 4), kq = (u % (C::BK / 4)) * 4;
        const int gr = row0 + r, gk = k0 + kq;
        a[i] = (gr < M && gk < K) ? *reinterpret_cast<const float4*>(A + size_t(gr) * K + gk)
                                    : make_float4(0.f, 0.f, 0.f, 0.f);
      });
    }
    if constexpr (C::BMODE == 0) {
      for_units<C, C::BK * C::BN / 4>([&](int u, int i) {
        const int kr = u / (C::BN / 4), n = (u % (C::BN / 4)) * 4;
        const int gk = k0 + kr, gc = col0 + n;
        b[i] = (gk < K && gc < N) ? *reinterpret_cast<const float4*>(B + size_t(gk) * N + gc)
                                    : make_float4(0.f, 0.f, 0.f, 0.f);
      });
    }
  }
  __device__ __forceinline__ void store(float* As, float* Bs) const {
    if constexpr (C::AMODE == 0) {
      for_units<C, C::BM * C::BK / 4>([&](int u, int i) {
        const int r = u / (C::BK / 4), kq = (u % (C::BK / 4)) * 4;
        const float4 v = a[i];
        As[(kq + 0) * C::kAsRow + r] = v.x;
        As[(kq + 1) * C::kAsRow + r] = v.y;
        As[(kq + 2) * C::kAsRow + r] = v.z;
        As[(kq + 3) * C::kAsRow + r] = v.w;
      });
    }
    if constexpr (C::BMODE == 0) {
      for_units<C, C::BK * C::BN / 4>([&](int u, int i) {
        const int kr = u / (C::BN / 4), n = (u % (C::BN / 4)) * 4;
        *reinterpret_cast<float4*>(Bs + kr * C::BN + n) = b[i];
      });
    }
  }
};

// ---- The kernel -------------------------------------------------------------------------------
template <class C>
__global__ void __launch_bounds__(C::kThreads, C::MINB)
    sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ Cm, int M, int N, int K) {
  extern __shared__ __align__(16) float smem[];
  constexpr int BM = C::BM, BN = C::BN, BK = C::BK, TM = C::TM, TN = C::TN, S = C::STAGES;
  constexpr bool kStaged = C::AMODE == 0 || C::BMODE == 0;

  // Which tile of C: in launch order, or (SWZ = G) down groups of G block rows first.
  int bx = blockIdx.x, by = blockIdx.y;
  if constexpr (C::SWZ > 0) {
    const int id = blockIdx.y * gridDim.x + blockIdx.x;
    const int per_group = C::SWZ * gridDim.x;
    const int first_row = (id / per_group) * C::SWZ;
    const int rows = min(int(gridDim.y) - first_row, C::SWZ);
    const int in_group = id % per_group;
    by = first_row + in_group % rows;
    bx = in_group / rows;
  }
  const int row0 = by * BM, col0 = bx * BN;

  // The thread's place: warp (wr, wc) of the block, lane (lr, lc) of the warp; its patch is
  // (TM / 4) x (TN / 4) fragments of 4 x 4, LR * 4 rows and LC * 4 columns apart, so that the
  // lanes of a warp read neighbouring float4s of shared memory.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int prow = (warp / C::kWarpsAcross) * C::WM + (lane / C::LC) * 4;
  const int pcol = (warp % C::kWarpsAcross) * C::WN + (lane % C::LC) * 4;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  auto As_of = [&](int s) { return smem + (s % S) * C::kStageFloats; };
  auto Bs_of = [&](int s) { return smem + (s % S) * C::kStageFloats + C::kAsFloats; };

  // This block's slices: all of them, or (split-K) its blockIdx.z-th share.
  int s_begin = 0, slices = (K + BK - 1) / BK;
  if constexpr (C::KSPLIT > 1) {
    const int per = (slices + C::KSPLIT - 1) / C::KSPLIT;
    s_begin = min(slices, int(blockIdx.z) * per);
    slices = min(slices, s_begin + per) - s_begin;
  }
  const int kbase = s_begin * BK;
  // Prologue: slices 0 .. S-2 on their way (one commit group each, empty or not, so that the
  // count of groups to wait for is the same every time).
#pragma unroll
  for (int p = 0; p < S - 1; ++p) {
    if (p < slices) issue_async<C>(A, B, M, N, K, row0, col0, kbase + p * BK, As_of(p), Bs_of(p));
    commit();
  }
  Staged<C> staged;
  if constexpr (kStaged) {
    if (slices > 0) {  // (split-K: a last share may be empty)
      staged.load(A, B, M, N, K, row0, col0, kbase);
      staged.store(As_of(0), Bs_of(0));
    }
  }
  wait_prior<S - 2>();
  __syncthreads();

  for (int s = 0; s < slices; ++s) {
    // Refill the stage that slice s - 1 used (everyone left it at the last barrier).
    {
      const int n = s + S - 1;
      if (n < slices) issue_async<C>(A, B, M, N, K, row0, col0, kbase + n * BK, As_of(n), Bs_of(n));
      commit();
    }
    if constexpr (kStaged)
      if (s + 1 < slices) staged.load(A, B, M, N, K, row0, col0, kbase + (s + 1) * BK);  // in flight during the FMAs

    const float* As = As_of(s);
    const float* Bs = Bs_of(s);
    // k's fragments: float4 reads of a row of As and of Bs.
    auto read_frags = [&](int k, float(&a)[TM], float(&b)[TN]) {
#pragma unroll
      for (int f = 0; f < TM / 4; ++f) {
        const float4 v = *reinterpret_cast<const float4*>(As + k * C::kAsRow + prow + f * C::LR * 4);
        a[f * 4 + 0] = v.x, a[f * 4 + 1] = v.y, a[f * 4 + 2] = v.z, a[f * 4 + 3] = v.w;
      }
#pragma unroll
      for (int f = 0; f < TN / 4; ++f) {
        const float4 v = *reinterpret_cast<const float4*>(Bs + k * BN + pcol + f * C::LC * 4);
        b[f * 4 + 0] = v.x, b[f * 4 + 1] = v.y, b[f * 4 + 2] = v.z, b[f * 4 + 3] = v.w;
      }
    };
    if constexpr (C::FRAG == 0) {
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        float a[TM], b[TN];
        read_frags(k, a, b);
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    } else {
      float a[2][TM], b[2][TN];
      read_frags(0, a[0], b[0]);
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        if (k + 1 < BK) read_frags(k + 1, a[(k + 1) % 2], b[(k + 1) % 2]);  // on their way during k's FMAs
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[k % 2][i], b[k % 2][j], acc[i][j]);
      }
    }

    if constexpr (kStaged)
      if (s + 1 < slices) staged.store(const_cast<float*>(As_of(s + 1)), const_cast<float*>(Bs_of(s + 1)));
    wait_prior<S - 2>();  // this thread's copies of slice s + 1 have landed...
    __syncthreads();      // ...and everyone's, and everyone is done with slice s's stage
  }

  // float4 stores straight from the registers: a fragment's row is 4 neighbouring columns.
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = row0 + prow + (i / 4) * C::LR * 4 + i % 4;
    if (r >= M) continue;
#pragma unroll
    for (int f = 0; f < TN / 4; ++f) {
      const int c = col0 + pcol + f * C::LC * 4;
      if (c >= N) continue;
      if constexpr (C::KSPLIT > 1) {
#pragma unroll
        for (int j = 0; j < 4; ++j) atomicAdd(Cm + size_t(r) * N + c + j, acc[i][f * 4 + j]);
      } else {
        *reinterpret_cast<float4*>(Cm + size_t(r) * N + c) =
            make_float4(acc[i][f * 4], acc[i][f * 4 + 1], acc[i][f * 4 + 2], acc[i][f * 4 + 3]);
      }
    }
  }
}

// Host side: the launch, with the dynamic shared memory the ring needs allowed once.
template <class C>
void launch(const float* A, const float* B, float* Cm, int M, int N, int K) {
  static bool ready = [] {
    cudaFuncSetAttribute(sgemm<C>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(C::kSmemBytes));
    return true;
  }();
  (void)ready;
  const dim3 grid((N + C::BN - 1) / C::BN, (M + C::BM - 1) / C::BM, C::KSPLIT);
  if (C::KSPLIT > 1) cudaMemsetAsync(Cm, 0, size_t(M) * N * sizeof(float));  // split-K adds into C
  sgemm<C><<<grid, C::kThreads, C::kSmemBytes>>>(A, B, Cm, M, N, K);
}

}  // namespace lab9_family
