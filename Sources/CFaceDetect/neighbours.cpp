// Nearest neighbours of face descriptors for `--people` (see
// include/CFaceDetect.h), through hnswlib, a header-only C++ library.
#include "internal.hpp"

#include <algorithm>
#include <cmath>
#include <hnswlib/hnswlib.h>
#include <memory>
#include <utility>

using namespace cfacedetect;

namespace {

using Hit = std::pair<float, int32_t>;  // squared distance, row

void keep(std::vector<Hit> &hits, size_t row, int k, int32_t *neighbours, float *distances) {
    std::sort(hits.begin(), hits.end());
    for (int j = 0; j < k; j++) {
        bool have = static_cast<size_t>(j) < hits.size();
        neighbours[row * k + j] = have ? hits[j].second : -1;
        distances[row * k + j] = have ? std::sqrt(std::max(0.0f, hits[j].first)) : INFINITY;
    }
}

} // namespace

extern "C" int CFaceDetect_Neighbours(const float *vectors, size_t count, int dim, int k, size_t exact_limit,
                                      int32_t *neighbours, float *distances, char **message) {
    return guarded(message, [&]() -> int {
        if ((!vectors && count > 0) || dim < 1 || k < 1 || !neighbours || !distances || count > INT32_MAX) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to neighbours");
        }
        hnswlib::L2Space space(dim);
        auto distance = space.get_dist_func();
        void *parameters = space.get_dist_func_param();
        std::vector<Hit> hits;
        if (count <= exact_limit) {
            for (size_t i = 0; i < count; i++) {
                hits.clear();
                for (size_t j = 0; j < count; j++) {
                    if (j == i) continue;
                    hits.emplace_back(distance(vectors + i * dim, vectors + j * dim, parameters),
                                      static_cast<int32_t>(j));
                }
                if (hits.size() > static_cast<size_t>(k)) {
                    std::partial_sort(hits.begin(), hits.begin() + k, hits.end());
                    hits.resize(k);
                }
                keep(hits, i, k, neighbours, distances);
            }
            return CFaceDetect_OK;
        }
        auto graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(&space, count, 16, 200, 100);
        for (size_t i = 0; i < count; i++) graph->addPoint(vectors + i * dim, i);
        graph->setEf(std::max<size_t>(200, static_cast<size_t>(k) * 2));
        for (size_t i = 0; i < count; i++) {
            auto found = graph->searchKnn(vectors + i * dim, k + 1);
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
        return CFaceDetect_OK;
    });
}
