// pjdl_bench_torch: PyTorch's own DLPack conversion (at::toDLPack +
// deleter, at::fromDLPack + tensor destruction, from Debian's libtorch-dev)
// interleaved in the same process with the library's export and import of
// tensors of the same shape (bench_lib.h), so that load affects both.
//
// Result lines (see bench/report.py), medians in ns:
//   torch.to.1k / torch.to.1g       at::toDLPack + deleter
//   torch.from.1k / torch.from.1g   at::fromDLPack + ~Tensor
//   lib.export.1k / lib.export.1g   pjdl_buffer_export (share) + deleter
//   lib.import.1k / lib.import.1g   pjdl_import (view) + pjdl_buffer_release
//   sweep.torch_to.<bytes> / sweep.torch_from.<bytes>   for the plot
//
// Built twice (bench/CMakeLists.txt): pjdl_bench_torch against Debian's
// libtorch, and pjdl_bench_torch2 against PyTorch 2's, from the modern
// Python environment's torch package, with PJDL_BENCH_PREFIX "pt2." in
// front of every key (pt2.torch.from.1k, pt2.lib.import.1k, ...) and
// without the sweep (PJDL_BENCH_NO_SWEEP), which the plot takes from the
// first.
#ifndef PJDL_BENCH_PREFIX
#define PJDL_BENCH_PREFIX ""
#endif
#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>
#include <ATen/Parallel.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "bench_lib.h"
#include "bench_util.h"

namespace {

struct TorchCase {
    at::Tensor tensor;       // for toDLPack
    DLManagedTensor managed; // for fromDLPack: a no-op deleter
    std::vector<int64_t> shape;
};

void noop_deleter(DLManagedTensor *) {}

TorchCase make_case(void *data, int64_t rows, int64_t cols) {
    TorchCase c;
    c.shape = {rows, cols};
    c.tensor = at::from_blob(data, {rows, cols}, at::TensorOptions().dtype(at::kFloat));
    std::memset(&c.managed, 0, sizeof c.managed);
    c.managed.dl_tensor.data = data;
    c.managed.dl_tensor.device = {kDLCPU, 0};
    c.managed.dl_tensor.ndim = 2;
    c.managed.dl_tensor.dtype = {kDLFloat, 32, 1};
    c.managed.dl_tensor.shape = c.shape.data();
    c.managed.dl_tensor.strides = nullptr;
    c.managed.deleter = noop_deleter;
    return c;
}

void loop_to(void *arg, int64_t n) {
    auto *c = static_cast<TorchCase *>(arg);
    for (int64_t i = 0; i < n; i++) {
        DLManagedTensor *m = at::toDLPack(c->tensor);
        BENCH_SINK(m->dl_tensor.data);
        m->deleter(m);
    }
}

void loop_from(void *arg, int64_t n) {
    auto *c = static_cast<TorchCase *>(arg);
    for (int64_t i = 0; i < n; i++) {
        at::Tensor t = at::fromDLPack(&c->managed);
        BENCH_SINK(t.unsafeGetTensorImpl());
    }
}

void shape_of(size_t bytes, int64_t *rows, int64_t *cols) {
    int64_t n = static_cast<int64_t>(bytes / 4), r = 1;
    while (r * r * 4 <= n)
        r *= 2;
    *rows = r;
    *cols = n / r;
}

} // namespace

int main(int argc, char **argv) {
    bench_args args;
    if (!bench_args_parse(argc, argv, &args))
        return 2;
    at::set_num_threads(1);
    int rounds = args.smoke ? 1 : (args.rounds ? args.rounds : 101);
    int64_t batch = args.smoke ? 2 : 2000;
    size_t big = args.smoke ? (size_t)1 << 20 : (size_t)1 << 30;
    bench_env *env = bench_env_open(args.plugin, "cpu");
    if (env == nullptr)
        return 3;

    // The headline: 1 KiB and 1 GiB, torch and the library interleaved.
    int64_t r1, c1, r2, c2;
    shape_of(1024, &r1, &c1);
    shape_of(big, &r2, &c2);
    void *m1 = bench_host_alloc(1024), *m2 = bench_host_alloc(big);
    bench_view *v1 = m1 ? bench_view_open(env, m1, r1, c1) : nullptr;
    bench_view *v2 = m2 ? bench_view_open(env, m2, r2, c2) : nullptr;
    if (v1 == nullptr || v2 == nullptr) {
        std::fprintf(stderr, "pjdl_bench_torch: cannot set up the tensors\n");
        return 1;
    }
    {
        TorchCase t1 = make_case(m1, r1, c1), t2 = make_case(m2, r2, c2);
        bench_case cases[] = {
            {PJDL_BENCH_PREFIX "torch.to.1k", loop_to, &t1, 0},
            {PJDL_BENCH_PREFIX "lib.export.1k", bench_loop_export, v1, 0},
            {PJDL_BENCH_PREFIX "torch.from.1k", loop_from, &t1, 0},
            {PJDL_BENCH_PREFIX "lib.import.1k", bench_loop_import_view, v1, 0},
            {PJDL_BENCH_PREFIX "torch.to.1g", loop_to, &t2, 0},
            {PJDL_BENCH_PREFIX "lib.export.1g", bench_loop_export, v2, 0},
            {PJDL_BENCH_PREFIX "torch.from.1g", loop_from, &t2, 0},
            {PJDL_BENCH_PREFIX "lib.import.1g", bench_loop_import_view, v2, 0},
        };
        bench_interleave(cases, sizeof cases / sizeof cases[0], rounds, batch);
    }
    bench_view_close(v1);
    bench_view_close(v2);
    bench_host_free(m1, 1024);
    bench_host_free(m2, big);

#ifndef PJDL_BENCH_NO_SWEEP
    // Latency against size, for the plot.
    for (size_t bytes = 1024; bytes <= big; bytes *= 16) {
        int64_t rows, cols;
        shape_of(bytes, &rows, &cols);
        void *m = bench_host_alloc(bytes);
        if (m == nullptr)
            return 1;
        {
            TorchCase t = make_case(m, rows, cols);
            char k1[64], k2[64];
            std::snprintf(k1, sizeof k1, "sweep.torch_to.%zu", bytes);
            std::snprintf(k2, sizeof k2, "sweep.torch_from.%zu", bytes);
            bench_case cases[] = {{k1, loop_to, &t, 0}, {k2, loop_from, &t, 0}};
            bench_interleave(cases, 2, rounds, batch);
        }
        bench_host_free(m, bytes);
    }
#endif
    bench_env_close(env);
    return 0;
}
