# What a level of the cluster kernel (kernels/cluster_graph.cu) costs before any edge: the cluster
# barrier alone, with the counts read through DSMEM, with the bitmap-to-queue pass, for 8 / 16 blocks of
# 512 / 1024 threads; K iterations in one launch, %globaltimer around them (ns per iteration).
#   python notebooks/experiments/cluster_barrier_probe.py OUT.json
import json, sys
import cupy

SRC = r'''
__device__ __forceinline__ unsigned addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ unsigned mapa(unsigned a, int r) { unsigned d; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(r)); return d; }
__device__ __forceinline__ unsigned ldc(unsigned a) { unsigned v; asm volatile("ld.relaxed.cluster.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory"); return v; }
__device__ __forceinline__ void csync() { asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory"); }
__device__ __forceinline__ void csync_relaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory"); }
__device__ __forceinline__ unsigned rank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
template <int C, int MODE>
__global__ void __cluster_dims__(C, 1, 1) probe(int K, unsigned long long* out, int* sink) {
    __shared__ int cnt[3];
    __shared__ int tot;
    __shared__ int warp_s[33];
    __shared__ unsigned bits[256];
    const int tid = threadIdx.x, lane = tid & 31;
    if (tid < 3) cnt[tid] = 1;
    if (tid < 256) bits[tid] = 0x01010101u * (tid & 3);
    csync();
    unsigned long long t0 = gt();
    int acc = 0;
    for (int k = 0; k < K; ++k) {
        if (MODE == 4) csync_relaxed(); else csync();
        if (MODE >= 1 && MODE != 4) {
            if (tid < 32) {
                int c = 0;
                if (lane < C) c = lane == (int)rank() ? cnt[k % 3] : (int)ldc(mapa(addr(&cnt[k % 3]), lane));
                c = __reduce_add_sync(0xffffffffu, c);
                if (lane == 0) tot = c;
            }
            __syncthreads();
            acc += tot;
        }
        if (MODE >= 2 && MODE != 4) {  // one round of the bitmap-to-queue pass: a block scan of popcounts
            const unsigned x = tid < 256 ? bits[tid] : 0u;
            int v = __popc(x), inc = v;
            for (int o = 1; o < 32; o <<= 1) { int t = __shfl_up_sync(0xffffffffu, inc, o); if (lane >= o) inc += t; }
            if (lane == 31) warp_s[tid >> 5] = inc;
            __syncthreads();
            if (tid < 32) { int w = lane < (blockDim.x >> 5) ? warp_s[lane] : 0; int wi = w;
                for (int o = 1; o < 32; o <<= 1) { int t = __shfl_up_sync(0xffffffffu, wi, o); if (lane >= o) wi += t; }
                warp_s[lane] = wi - w; }
            __syncthreads();
            acc += warp_s[tid >> 5] + inc - v;
            __syncthreads();
        }
        if (MODE == 3 && tid == 0) sink[blockIdx.x] = acc;  // a global store per level (the trace)
    }
    unsigned long long t1 = gt();
    if (tid == 0 && blockIdx.x == 0) out[0] = t1 - t0;
    if (acc == 12345678) sink[0] = acc;
    csync();
}
'''
names = [f"probe<{c},{m}>" for c in (8, 16) for m in (0, 1, 2, 3, 4)]
mod = cupy.RawModule(code=SRC, name_expressions=names, options=("-std=c++17",))
out = cupy.zeros(1, dtype=cupy.uint64)
sink = cupy.zeros(64, dtype=cupy.int32)
res = []
K = 2000
for c in (8, 16):
    for m in (0, 1, 2, 3, 4):
        k = mod.get_function(f"probe<{c},{m}>")
        if c > 8:
            cupy.cuda.driver.funcSetAttribute(k.kernel.ptr, 14, 1)
        for threads in (512, 1024):
            best = None
            for _ in range(5):
                k((c,), (threads,), (K, out, sink))
                cupy.cuda.Device().synchronize()
                ns = int(out.get()[0]) / K
                best = ns if best is None else min(best, ns)
            rec = dict(blocks=c, mode=["barrier", "+counts", "+scan", "+store", "relaxed barrier"][m], threads=threads,
                       ns_per_iter=round(best, 1))
            res.append(rec)
            print(json.dumps(rec), flush=True)
json.dump(res, open(sys.argv[1], "w"), indent=1)
