// Nearest neighbours of face descriptors for `--people` (see
// include/CFaceDetectIdentity.h), through hnswlib, a header-only C++ library.
#include "internal.hpp"

#include <algorithm>
#include <cmath>
#include <hnswlib/hnswlib.h>
#include <memory>
#include <thread>
#include <utility>

using namespace cfacedetect;

namespace {

using Hit = std::pair<float, int32_t>;  // squared distance, row

// The graph stores a row number per point instead of a copy of its
// descriptor (hnswlib copies `get_data_size()` bytes a point): the
// distance reads both rows from the caller's vectors. At 1M faces that is
// 4 bytes a point instead of 512.
struct RowSpace : hnswlib::SpaceInterface<float> {
    struct Rows {
        const float *vectors;
        size_t dim;
        // hnswlib's own squared distance (SSE for 128 floats) on two rows.
        hnswlib::DISTFUNC<float> squared;
        void *squaredParam;
    } rows;
    hnswlib::L2Space plain;
    explicit RowSpace(const float *vectors, size_t dim) : plain(dim) {
        rows = {vectors, dim, plain.get_dist_func(), plain.get_dist_func_param()};
    }
    static float distance(const void *a, const void *b, const void *param) {
        auto *rows = static_cast<const Rows *>(param);
        uint32_t i, j;
        std::memcpy(&i, a, sizeof i);
        std::memcpy(&j, b, sizeof j);
        return rows->squared(rows->vectors + static_cast<size_t>(i) * rows->dim,
                             rows->vectors + static_cast<size_t>(j) * rows->dim, rows->squaredParam);
    }
    size_t get_data_size() override { return sizeof(uint32_t); }
    hnswlib::DISTFUNC<float> get_dist_func() override { return distance; }
    void *get_dist_func_param() override { return &rows; }
};

void keep(std::vector<Hit> &hits, size_t row, int k, int32_t *neighbours, float *distances) {
    std::sort(hits.begin(), hits.end());
    for (int j = 0; j < k; j++) {
        bool have = static_cast<size_t>(j) < hits.size();
        neighbours[row * k + j] = have ? hits[j].second : -1;
        distances[row * k + j] = have ? std::sqrt(std::max(0.0f, hits[j].first)) : INFINITY;
    }
}

// `hits` cut to the `k` nearest (ties by lower row), kept as row `row`'s list.
void keepNearest(std::vector<Hit> &hits, size_t row, int k, int32_t *neighbours, float *distances) {
    if (hits.size() > static_cast<size_t>(k)) {
        std::partial_sort(hits.begin(), hits.begin() + k, hits.end());
        hits.resize(k);
    }
    keep(hits, row, k, neighbours, distances);
}

// Runs `body(first, end)` over [0, count) in `wanted` slices (0: one per
// core, at most 8). Only for work whose every item's answer depends on
// nothing but the item (the searches of a finished graph): the result is
// the same at any thread count.
template <typename Body> void sliced(size_t count, int wanted, Body body) {
    size_t threads = wanted > 0 ? static_cast<size_t>(wanted)
                                : std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    if (count < 1000 || threads == 1) return body(0, count);
    std::vector<std::thread> pool;
    std::exception_ptr failure;
    std::mutex lock;
    for (size_t t = 0; t < threads; t++) {
        pool.emplace_back([&, t] {
            try {
                body(count * t / threads, count * (t + 1) / threads);
            } catch (...) {
                std::lock_guard<std::mutex> hold(lock);
                failure = std::current_exception();
            }
        });
    }
    for (auto &thread : pool) thread.join();
    if (failure) std::rethrow_exception(failure);
}

// One pass that mends the graph's misses: each row's list is re-chosen
// from its own neighbours, their neighbours and the rows that list it, by
// the exact distance (ties by lower row). A face whose search found one
// face of its person this way gets the rest of them. Reads a copy of the
// first lists only, so each row's answer depends on nothing but those: the
// same at any thread count. On the generated 100k with ef_construction 40
// it brings the faces grouped from 59,461 to 59,996 of 60,000 (pairwise
// recall 0.9835 -> 0.9999) for ~5 s of CPU (docs/people.md "Scale").
void refine(const RowSpace::Rows &rows, size_t count, int k, int threads, int32_t *neighbours, float *distances) {
    std::vector<int32_t> first(neighbours, neighbours + count * k);
    // Who lists each row, in row order (CSR: `from[start[j]..start[j+1])`).
    std::vector<uint32_t> start(count + 1, 0);
    for (int32_t j : first)
        if (j >= 0) start[j + 1]++;
    for (size_t j = 0; j < count; j++) start[j + 1] += start[j];
    std::vector<uint32_t> from(start[count]);
    {
        std::vector<uint32_t> fill(start.begin(), start.end() - 1);
        for (size_t i = 0; i < count; i++)
            for (int j = 0; j < k; j++) {
                int32_t other = first[i * k + j];
                if (other >= 0) from[fill[other]++] = static_cast<uint32_t>(i);
            }
    }
    sliced(count, threads, [&](size_t begin, size_t end) {
        std::vector<int32_t> candidates;
        std::vector<Hit> hits;
        for (size_t i = begin; i < end; i++) {
            candidates.clear();
            for (int j = 0; j < k; j++) {
                int32_t other = first[i * k + j];
                if (other < 0) continue;
                candidates.push_back(other);
                for (int m = 0; m < k; m++) candidates.push_back(first[static_cast<size_t>(other) * k + m]);
            }
            for (uint32_t n = start[i]; n < start[i + 1]; n++) candidates.push_back(static_cast<int32_t>(from[n]));
            std::sort(candidates.begin(), candidates.end());
            candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
            hits.clear();
            uint32_t a = static_cast<uint32_t>(i);
            for (int32_t other : candidates) {
                if (other < 0 || static_cast<size_t>(other) == i) continue;
                uint32_t b = static_cast<uint32_t>(other);
                hits.emplace_back(RowSpace::distance(&a, &b, &rows), other);
            }
            keepNearest(hits, i, k, neighbours, distances);
        }
    });
}

// Every row's `k` nearest, each row measured against every other.
void exact(const RowSpace::Rows &rows, size_t count, int k, int threads, int32_t *neighbours, float *distances) {
    sliced(count, threads, [&](size_t first, size_t end) {
        std::vector<Hit> hits;
        for (size_t i = first; i < end; i++) {
            hits.clear();
            uint32_t a = static_cast<uint32_t>(i);
            for (size_t j = 0; j < count; j++) {
                if (j == i) continue;
                uint32_t b = static_cast<uint32_t>(j);
                hits.emplace_back(RowSpace::distance(&a, &b, &rows), static_cast<int32_t>(j));
            }
            keepNearest(hits, i, k, neighbours, distances);
        }
    });
}

// Every row's `k` nearest through an HNSW graph, then `refine`d.
void throughGraph(RowSpace &space, size_t count, int k, int build_effort, int threads, int32_t *neighbours,
                  float *distances) {
    // Built in row order on this thread from hnswlib's fixed seed: the
    // same graph on every run. ef_construction 40 (0 asks for it), not
    // hnswlib's customary 100: the build is serial and its cost grows
    // with it (generated 100k faces: grouping CPU 76.6 -> 45.7 s with
    // the pass below, the same people; docs/people.md "Scale").
    size_t effort = build_effort > 0 ? static_cast<size_t>(build_effort) : 40;
    auto graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(&space, count, 16, effort, 100);
    for (size_t i = 0; i < count; i++) {
        uint32_t row = static_cast<uint32_t>(i);
        graph->addPoint(&row, i);
    }
    graph->setEf(std::max<size_t>(64, static_cast<size_t>(k) * 4));
    sliced(count, threads, [&](size_t first, size_t end) {
        std::vector<Hit> hits;
        for (size_t i = first; i < end; i++) {
            uint32_t row = static_cast<uint32_t>(i);
            auto found = graph->searchKnn(&row, k + 1);
            hits.clear();
            while (!found.empty()) {
                if (found.top().second != i) hits.emplace_back(found.top().first, static_cast<int32_t>(found.top().second));
                found.pop();
            }
            if (hits.size() > static_cast<size_t>(k)) {
                std::sort(hits.begin(), hits.end());
                hits.resize(k);
            }
            keep(hits, i, k, neighbours, distances);
        }
    });
    graph.reset();
    refine(space.rows, count, k, threads, neighbours, distances);
}

} // namespace

extern "C" int CFaceDetect_Neighbours(const float *vectors, size_t count, int dim, int k, size_t exact_limit,
                                      int build_effort, int threads, int32_t *neighbours, float *distances,
                                      char **message) {
    return guarded(message, [&]() -> int {
        if ((!vectors && count > 0) || dim < 1 || k < 1 || !neighbours || !distances || count > INT32_MAX ||
            build_effort < 0 || threads < 0) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to neighbours");
        }
        RowSpace space(vectors, static_cast<size_t>(dim));
        if (count <= exact_limit) {
            exact(space.rows, count, k, threads, neighbours, distances);
        } else {
            throughGraph(space, count, k, build_effort, threads, neighbours, distances);
        }
        return CFaceDetect_OK;
    });
}
