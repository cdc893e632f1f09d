// CFaceDetect: see include/CFaceDetect.h. Each extern "C" body catches every
// exception, so a failure in OpenCV arrives in Swift as a status and a message.
#include "CFaceDetect.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <sys/stat.h>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <cmath>

struct CFaceDetect_Cascade {
    cv::CascadeClassifier classifier;
};

struct CFaceDetect_People {
    cv::HOGDescriptor hog;
};

struct CFaceDetect_YuNet {
    cv::dnn::Net net;
    std::vector<cv::String> outputs;
};

namespace {

int report(int status, char **message, const std::string &text) {
    if (message) {
        *message = static_cast<char *>(std::malloc(text.size() + 1));
        if (*message) std::memcpy(*message, text.c_str(), text.size() + 1);
    }
    return status;
}

// Runs `body`, turning any exception into a status and message.
template <typename Body> int guarded(char **message, Body body) {
    try {
        return body();
    } catch (const cv::Exception &e) {
        return report(CFaceDetect_OpenCVError, message, "OpenCV: " + std::string(e.what()));
    } catch (const std::bad_alloc &) {
        return report(CFaceDetect_NoMemory, message, "out of memory");
    } catch (const std::exception &e) {
        return report(CFaceDetect_OpenCVError, message, e.what());
    } catch (...) {
        return report(CFaceDetect_OpenCVError, message, "unknown C++ exception");
    }
}

template <typename T> int handOut(const std::vector<T> &kept, T **out, size_t *count, char **message) {
    if (kept.empty()) return CFaceDetect_OK;
    auto *made = static_cast<T *>(std::malloc(kept.size() * sizeof(T)));
    if (!made) return report(CFaceDetect_NoMemory, message, "out of memory");
    std::memcpy(made, kept.data(), kept.size() * sizeof(T));
    *out = made;
    *count = kept.size();
    return CFaceDetect_OK;
}

double overlap(const cv::Rect &a, const cv::Rect &b) {
    double inter = (a & b).area();
    double united = a.area() + b.area() - inter;
    return united > 0 ? inter / united : 0;
}

// OpenCV's detectMultiScale builds the integral images of every pyramid
// level before it scans (about 46 MB for a 1008 x 756 photo and a 20 px
// window, three quarters of it in the first octave), and two workers scanning
// at once doubled that. This scans one level at a time instead (minSize =
// maxSize = that level's window, the same scale factors OpenCV steps
// through), so at most one level's tables exist, about 8 MB at 1008 x 756.
// The raw windows of all levels are put in one fixed order and grouped as
// detectMultiScale groups them (eps 0.2). With `weights`, only
// windows that passed every stage are kept, with their final-stage sums.
void scanByLevel(cv::CascadeClassifier &classifier, const cv::Mat &image, double scaleFactor,
                 int minNeighbors, cv::Size minSize, cv::Size maxSize, std::vector<cv::Rect> &rects,
                 std::vector<int> &hits, std::vector<double> *weights = nullptr) {
    rects.clear();
    hits.clear();
    if (weights) weights->clear();
    cv::Size window = classifier.getOriginalWindowSize();
    if (window.width < 1 || window.height < 1) return;
    if (maxSize.width == 0 || maxSize.height == 0) maxSize = image.size();
    struct Window {
        cv::Rect box;
        int level;
        double weight;
    };
    std::vector<Window> raw;
    std::vector<cv::Rect> found;
    std::vector<int> levels;
    std::vector<double> sums;
    for (double factor = 1;; factor *= scaleFactor) {
        cv::Size level(cvRound(window.width * factor), cvRound(window.height * factor));
        if (level.width > maxSize.width || level.height > maxSize.height || level.width > image.cols ||
            level.height > image.rows) {
            break;
        }
        if (level.width < minSize.width || level.height < minSize.height) continue;
        if (weights) {
            classifier.detectMultiScale(image, found, levels, sums, scaleFactor, 0, 0, level, level, true);
        } else {
            classifier.detectMultiScale(image, found, levels, scaleFactor, 0, 0, level, level);
        }
        for (size_t i = 0; i < found.size(); i++) {
            raw.push_back({found[i], weights && i < levels.size() ? levels[i] : 1,
                           weights && i < sums.size() ? sums[i] : 0.0});
        }
    }
    // Workers' stripes push windows in any order; grouping is given one.
    std::sort(raw.begin(), raw.end(), [](const Window &a, const Window &b) {
        if (a.box.y != b.box.y) return a.box.y < b.box.y;
        if (a.box.x != b.box.x) return a.box.x < b.box.x;
        if (a.box.width != b.box.width) return a.box.width < b.box.width;
        return a.box.height < b.box.height;
    });
    for (const Window &w : raw) rects.push_back(w.box);
    const double groupEps = 0.2;
    if (weights) {
        for (const Window &w : raw) {
            hits.push_back(w.level);
            weights->push_back(w.weight);
        }
        cv::groupRectangles(rects, hits, *weights, minNeighbors, groupEps);
    } else {
        cv::groupRectangles(rects, hits, minNeighbors, groupEps);
    }
}

struct Raw {
    cv::Rect box;
    int hits;
    bool profile;
};

// Finds eyes in the upper part of `face` (in `image`), searched at a working
// size where an eye is well above the eye cascade's 20 px window. Returns
// the eye centres in image pixels, at most one per half of the face.
std::vector<cv::Point2d> findEyes(cv::CascadeClassifier &eyes, const cv::Mat &image, const cv::Rect &face) {
    cv::Rect band(face.x, face.y + face.height * 15 / 100, face.width, face.height * 45 / 100);
    band &= cv::Rect(0, 0, image.cols, image.rows);
    std::vector<cv::Point2d> found;
    if (band.width < 8 || band.height < 4) return found;
    double scale = face.width < 160 ? 160.0 / face.width : 1.0;
    cv::Mat region;
    if (scale > 1.0) {
        cv::resize(image(band), region, cv::Size(), scale, scale, cv::INTER_LINEAR);
    } else {
        region = image(band);
    }
    int side = static_cast<int>(face.width * scale);
    std::vector<cv::Rect> rects;
    std::vector<int> hits;
    eyes.detectMultiScale(region, rects, hits, 1.1, 3, 0, cv::Size(side / 10, side / 10),
                          cv::Size(side * 2 / 5, side * 2 / 5));
    // Best eye in each half of the face.
    int best[2] = {-1, -1};
    for (size_t i = 0; i < rects.size(); i++) {
        double cx = rects[i].x + rects[i].width / 2.0;
        int half = cx < region.cols / 2.0 ? 0 : 1;
        if (best[half] < 0 || hits[i] > hits[best[half]]) best[half] = static_cast<int>(i);
    }
    for (int half = 0; half < 2; half++) {
        if (best[half] < 0) continue;
        const cv::Rect &r = rects[best[half]];
        found.emplace_back(band.x + (r.x + r.width / 2.0) / scale, band.y + (r.y + r.height / 2.0) / scale);
    }
    return found;
}

} // namespace

extern "C" void CFaceDetect_SetNumThreads(int threads) {
    try {
        cv::setNumThreads(threads < 1 ? 1 : threads);
    } catch (...) {
    }
}

extern "C" int CFaceDetect_CascadeNew(const char *path, CFaceDetect_Cascade **cascade,
                                      char **message) {
    return guarded(message, [&]() -> int {
        if (!path || !cascade) return report(CFaceDetect_BadArgument, message, "no path");
        *cascade = nullptr;
        // OpenCV prints to stderr for a missing file; check first and say it ourselves.
        struct stat info;
        if (stat(path, &info) != 0 || !S_ISREG(info.st_mode)) {
            return report(CFaceDetect_LoadFailed, message,
                          std::string("cascade file not found: ") + path);
        }
        auto *made = new CFaceDetect_Cascade();
        if (!made->classifier.load(path) || made->classifier.empty()) {
            delete made;
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not a cascade OpenCV can load: ") + path);
        }
        *cascade = made;
        return CFaceDetect_OK;
    });
}

extern "C" void CFaceDetect_CascadeWindow(const CFaceDetect_Cascade *cascade, int *width,
                                          int *height) {
    *width = 0;
    *height = 0;
    try {
        if (cascade) {
            cv::Size size = cascade->classifier.getOriginalWindowSize();
            *width = size.width;
            *height = size.height;
        }
    } catch (...) {
    }
}

extern "C" int CFaceDetect_CascadeDetect(CFaceDetect_Cascade *cascade, const uint8_t *gray,
                                         int width, int height, size_t stride,
                                         const CFaceDetect_Params *params,
                                         CFaceDetect_Box **boxes, size_t *count,
                                         char **message) {
    return guarded(message, [&]() -> int {
        if (!cascade || !gray || !params || !boxes || !count || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width) || params->scale_factor <= 1.0) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to detect");
        }
        *boxes = nullptr;
        *count = 0;
        // Wraps the caller's pixels; no copy.
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), stride);
        cv::Mat work;
        if (params->equalize) {
            cv::equalizeHist(image, work);
        } else {
            work = image;
        }
        std::vector<cv::Rect> found;
        std::vector<int> levels;
        std::vector<double> weights;
        cv::Size minSize(params->min_side, params->min_side);
        cv::Size maxSize = params->max_side > 0 ? cv::Size(params->max_side, params->max_side)
                                                : cv::Size();
        scanByLevel(cascade->classifier, work, params->scale_factor, params->min_neighbors,
                    minSize, maxSize, found, levels, &weights);
        // With reject levels on, OpenCV still groups by min_neighbors and keeps
        // only windows that passed every stage; `weights` holds each group's
        // best final-stage sum, the confidence we report.
        std::vector<CFaceDetect_Box> kept;
        for (size_t i = 0; i < found.size(); i++) {
            CFaceDetect_Box box;
            box.x = found[i].x;
            box.y = found[i].y;
            box.width = found[i].width;
            box.height = found[i].height;
            box.score = i < weights.size() ? weights[i] : 0.0;
            kept.push_back(box);
        }
        if (kept.empty()) return CFaceDetect_OK;
        auto *out = static_cast<CFaceDetect_Box *>(std::malloc(kept.size() * sizeof(CFaceDetect_Box)));
        if (!out) return report(CFaceDetect_NoMemory, message, "out of memory");
        std::memcpy(out, kept.data(), kept.size() * sizeof(CFaceDetect_Box));
        *boxes = out;
        *count = kept.size();
        return CFaceDetect_OK;
    });
}

extern "C" void CFaceDetect_CascadeClose(CFaceDetect_Cascade *cascade) {
    delete cascade;
}

extern "C" int CFaceDetect_Ensemble(CFaceDetect_Cascade *frontal, CFaceDetect_Cascade *profile,
                                    CFaceDetect_Cascade *confirm, CFaceDetect_Cascade *eye,
                                    CFaceDetect_Cascade *eyeglasses, const uint8_t *gray,
                                    int width, int height, size_t stride,
                                    const CFaceDetect_EnsembleParams *params,
                                    CFaceDetect_Candidate **candidates, size_t *count,
                                    char **message) {
    return guarded(message, [&]() -> int {
        if (!frontal || !gray || !params || !candidates || !count || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width) || params->scale_factor <= 1.0 ||
            params->upscale < 1.0) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to ensemble");
        }
        *candidates = nullptr;
        *count = 0;
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), stride);
        cv::Mat work;
        double up = params->upscale;
        if (up > 1.0) {
            cv::resize(image, work, cv::Size(), up, up, cv::INTER_LINEAR);
        } else {
            work = image.clone();
        }
        cv::equalizeHist(work, work);
        int minSide = static_cast<int>(params->min_side * up);
        cv::Size minSize(minSide, minSide);
        cv::Size maxSize = params->max_side > 0
                               ? cv::Size(static_cast<int>(params->max_side * up),
                                          static_cast<int>(params->max_side * up))
                               : cv::Size();
        std::vector<Raw> raws;
        std::vector<cv::Rect> rects;
        std::vector<int> hits;
        scanByLevel(frontal->classifier, work, params->scale_factor, params->frontal_min_neighbors,
                    minSize, maxSize, rects, hits);
        for (size_t i = 0; i < rects.size(); i++) raws.push_back({rects[i], hits[i], false});
        if (params->rotation > 0) {
            cv::Point2f centre(work.cols / 2.0f, work.rows / 2.0f);
            for (double angle : {-params->rotation, params->rotation}) {
                cv::Mat turn = cv::getRotationMatrix2D(centre, angle, 1.0);
                cv::Mat turned;
                cv::warpAffine(work, turned, turn, work.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
                cv::Mat back;
                cv::invertAffineTransform(turn, back);
                scanByLevel(frontal->classifier, turned, params->scale_factor,
                            params->frontal_min_neighbors, minSize, maxSize, rects, hits);
                for (size_t i = 0; i < rects.size(); i++) {
                    double cx = rects[i].x + rects[i].width / 2.0;
                    double cy = rects[i].y + rects[i].height / 2.0;
                    double ox = back.at<double>(0, 0) * cx + back.at<double>(0, 1) * cy + back.at<double>(0, 2);
                    double oy = back.at<double>(1, 0) * cx + back.at<double>(1, 1) * cy + back.at<double>(1, 2);
                    cv::Rect moved(static_cast<int>(ox - rects[i].width / 2.0),
                                   static_cast<int>(oy - rects[i].height / 2.0), rects[i].width,
                                   rects[i].height);
                    raws.push_back({moved, hits[i], false});
                }
            }
        }
        if (profile) {
            // The profile scans take a coarser pyramid: they only add candidates.
            double coarse = params->scale_factor * 1.1;
            scanByLevel(profile->classifier, work, coarse, params->profile_min_neighbors, minSize,
                        maxSize, rects, hits);
            for (size_t i = 0; i < rects.size(); i++) raws.push_back({rects[i], hits[i], true});
            cv::Mat mirrored;
            cv::flip(work, mirrored, 1);
            scanByLevel(profile->classifier, mirrored, coarse, params->profile_min_neighbors, minSize,
                        maxSize, rects, hits);
            for (size_t i = 0; i < rects.size(); i++) {
                cv::Rect r = rects[i];
                r.x = work.cols - r.x - r.width;
                raws.push_back({r, hits[i], true});
            }
        }
        // Merge: frontal boxes first, then by raw windows, each joins the
        // first kept box it overlaps by more than a third.
        std::stable_sort(raws.begin(), raws.end(), [](const Raw &a, const Raw &b) {
            if (a.profile != b.profile) return !a.profile;
            return a.hits > b.hits;
        });
        std::vector<CFaceDetect_Candidate> kept;
        std::vector<cv::Rect> boxes;
        for (const Raw &raw : raws) {
            size_t joined = boxes.size();
            for (size_t k = 0; k < boxes.size(); k++) {
                if (overlap(boxes[k], raw.box) > 0.33) {
                    joined = k;
                    break;
                }
            }
            if (joined == boxes.size()) {
                boxes.push_back(raw.box);
                CFaceDetect_Candidate made{};
                kept.push_back(made);
            }
            CFaceDetect_Candidate &c = kept[joined];
            if (raw.profile) {
                c.profile_hits = std::max(c.profile_hits, raw.hits);
            } else {
                c.frontal_hits = std::max(c.frontal_hits, raw.hits);
            }
        }
        cv::Rect whole(0, 0, work.cols, work.rows);
        for (size_t k = 0; k < kept.size(); k++) {
            CFaceDetect_Candidate &c = kept[k];
            const cv::Rect &box = boxes[k];
            if (confirm) {
                int grow = box.width / 4;
                cv::Rect around(box.x - grow, box.y - grow, box.width + 2 * grow, box.height + 2 * grow);
                around &= whole;
                cv::Mat region = work(around);
                double scale = box.width < 48 ? 48.0 / box.width : 1.0;
                cv::Mat searched;
                if (scale > 1.0) {
                    cv::resize(region, searched, cv::Size(), scale, scale, cv::INTER_LINEAR);
                } else {
                    searched = region;
                }
                int side = static_cast<int>(box.width * scale);
                confirm->classifier.detectMultiScale(searched, rects, hits, 1.05, 1, 0,
                                                     cv::Size(side * 7 / 10, side * 7 / 10),
                                                     cv::Size(side * 14 / 10, side * 14 / 10));
                for (size_t i = 0; i < rects.size(); i++) {
                    cv::Rect r(static_cast<int>(rects[i].x / scale) + around.x,
                               static_cast<int>(rects[i].y / scale) + around.y,
                               static_cast<int>(rects[i].width / scale),
                               static_cast<int>(rects[i].height / scale));
                    if (overlap(r, box) > 0.4) c.confirm_hits = std::max(c.confirm_hits, hits[i]);
                }
            }
            std::vector<cv::Point2d> eyes;
            if (eye) eyes = findEyes(eye->classifier, work, box);
            if (eyes.size() < 2 && eyeglasses) {
                std::vector<cv::Point2d> more = findEyes(eyeglasses->classifier, work, box);
                if (more.size() > eyes.size()) eyes = more;
            }
            c.eyes = static_cast<int>(eyes.size());
            if (eyes.size() == 2) {
                c.eye1_x = eyes[0].x / up;
                c.eye1_y = eyes[0].y / up;
                c.eye2_x = eyes[1].x / up;
                c.eye2_y = eyes[1].y / up;
            }
            c.x = static_cast<int>(std::lround(box.x / up));
            c.y = static_cast<int>(std::lround(box.y / up));
            c.width = static_cast<int>(std::lround(box.width / up));
            c.height = static_cast<int>(std::lround(box.height / up));
        }
        return handOut(kept, candidates, count, message);
    });
}

extern "C" int CFaceDetect_Vote(CFaceDetect_Cascade *const *cascades, size_t cascade_count,
                                const uint8_t *gray, int width, int height, size_t stride,
                                const CFaceDetect_VoteParams *params, CFaceDetect_VoteBox **boxes,
                                size_t *count, char **message) {
    return guarded(message, [&]() -> int {
        if (!cascades || cascade_count == 0 || cascade_count > 16 || !gray || !params || !boxes ||
            !count || width < 1 || height < 1 || stride < static_cast<size_t>(width) ||
            params->scale_factor <= 1.0) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to vote");
        }
        for (size_t c = 0; c < cascade_count; c++) {
            if (!cascades[c]) return report(CFaceDetect_BadArgument, message, "no cascade");
        }
        *boxes = nullptr;
        *count = 0;
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), stride);
        int longSide = std::max(width, height);
        double scale = params->work_side > 0 && longSide > params->work_side
                           ? static_cast<double>(params->work_side) / longSide
                           : 1.0;
        cv::Mat shrunk, work, mirrored;
        if (scale < 1.0) {
            cv::resize(image, shrunk, cv::Size(), scale, scale, cv::INTER_AREA);
        } else {
            shrunk = image;
        }
        cv::equalizeHist(shrunk, work);
        if (params->mirror) cv::flip(work, mirrored, 1);
        int minSide = static_cast<int>(params->min_side * scale);
        cv::Size minSize(minSide, minSide);
        cv::Size maxSize = params->max_side > 0 ? cv::Size(static_cast<int>(params->max_side * scale),
                                                           static_cast<int>(params->max_side * scale))
                                                : cv::Size();
        struct Voted {
            cv::Rect box;
            int votes;
            int hits;
            int lastPass;
            size_t order;
        };
        std::vector<Voted> voted;
        std::vector<cv::Rect> rects;
        std::vector<int> hits;
        int pass = 0;
        for (size_t c = 0; c < cascade_count; c++) {
            for (int side = 0; side < (params->mirror ? 2 : 1); side++, pass++) {
                scanByLevel(cascades[c]->classifier, side ? mirrored : work, params->scale_factor,
                            params->min_neighbors, minSize, maxSize, rects, hits);
                for (size_t i = 0; i < rects.size(); i++) {
                    cv::Rect r = rects[i];
                    if (side) r.x = work.cols - r.x - r.width;
                    int hit = i < hits.size() ? hits[i] : 0;
                    auto joined = std::find_if(voted.begin(), voted.end(), [&](const Voted &v) {
                        return overlap(v.box, r) > 0.4;
                    });
                    if (joined == voted.end()) {
                        voted.push_back({r, 1, hit, pass, voted.size()});
                    } else {
                        if (joined->lastPass != pass) joined->votes++;
                        joined->lastPass = pass;
                        joined->hits += hit;
                    }
                }
            }
        }
        std::sort(voted.begin(), voted.end(), [](const Voted &a, const Voted &b) {
            if (a.votes != b.votes) return a.votes > b.votes;
            if (a.hits != b.hits) return a.hits > b.hits;
            return a.order < b.order;
        });
        std::vector<CFaceDetect_VoteBox> kept;
        std::vector<cv::Rect> keptBoxes;
        for (const Voted &v : voted) {
            if (v.votes < params->min_votes) continue;
            bool shadowed = std::any_of(keptBoxes.begin(), keptBoxes.end(), [&](const cv::Rect &other) {
                double shared = (other & v.box).area();
                return shared * 4 > std::min(other.area(), v.box.area());
            });
            if (shadowed) continue;
            keptBoxes.push_back(v.box);
            kept.push_back({static_cast<int>(std::lround(v.box.x / scale)),
                            static_cast<int>(std::lround(v.box.y / scale)),
                            static_cast<int>(std::lround(v.box.width / scale)),
                            static_cast<int>(std::lround(v.box.height / scale)), v.votes, v.hits});
        }
        return handOut(kept, boxes, count, message);
    });
}

extern "C" double CFaceDetect_Sharpness(const uint8_t *gray, int width, int height, size_t stride,
                                        int x, int y, int box_width, int box_height) {
    try {
        if (!gray || width < 1 || height < 1) return -1;
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), stride);
        cv::Rect box = cv::Rect(x, y, box_width, box_height) & cv::Rect(0, 0, width, height);
        if (box.width < 2 || box.height < 2) return -1;
        cv::Mat resized, laplacian;
        cv::resize(image(box), resized, cv::Size(96, 96), 0, 0, cv::INTER_AREA);
        cv::Laplacian(resized, laplacian, CV_64F);
        cv::Scalar mean, deviation;
        cv::meanStdDev(laplacian, mean, deviation);
        return deviation[0] * deviation[0];
    } catch (...) {
        return -1;
    }
}

extern "C" int CFaceDetect_PeopleNew(CFaceDetect_People **people, char **message) {
    return guarded(message, [&]() -> int {
        if (!people) return report(CFaceDetect_BadArgument, message, "no handle");
        auto *made = new CFaceDetect_People();
        made->hog.setSVMDetector(cv::HOGDescriptor::getDefaultPeopleDetector());
        *people = made;
        return CFaceDetect_OK;
    });
}

extern "C" int CFaceDetect_PeopleDetect(CFaceDetect_People *people, const uint8_t *gray, int width,
                                        int height, size_t stride, double hit_threshold,
                                        int past_frame, CFaceDetect_Box **boxes, size_t *count,
                                        char **message) {
    return guarded(message, [&]() -> int {
        if (!people || !gray || !boxes || !count || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width)) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to people detect");
        }
        *boxes = nullptr;
        *count = 0;
        if (width < 64 || height < 128) return CFaceDetect_OK;
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), stride);
        std::vector<cv::Rect> found;
        std::vector<double> weights;
        people->hog.detectMultiScale(image, found, weights, hit_threshold, cv::Size(8, 8),
                                     cv::Size(0, 0), 1.1, 2.0, false);
        std::vector<CFaceDetect_Box> kept;
        for (size_t i = 0; i < found.size(); i++) {
            CFaceDetect_Box box{found[i].x, found[i].y, found[i].width, found[i].height,
                                i < weights.size() ? weights[i] : 0.0};
            kept.push_back(box);
        }
        if (past_frame) {
            int longSide = std::max(width, height);
            double scale = longSide > 512 ? 512.0 / longSide : 1.0;
            cv::Mat shrunk, extended;
            if (scale < 1.0) {
                cv::resize(image, shrunk, cv::Size(), scale, scale, cv::INTER_AREA);
            } else {
                shrunk = image;
            }
            int pad = static_cast<int>(std::max(shrunk.cols, shrunk.rows) * 0.15);
            cv::copyMakeBorder(shrunk, extended, pad, 2 * pad, pad, pad, cv::BORDER_REPLICATE);
            // The repeated edges make person-like stripes: this pass needs a
            // surer margin.
            people->hog.detectMultiScale(extended, found, weights, std::max(hit_threshold, 0.2),
                                         cv::Size(8, 8), cv::Size(0, 0), 1.05, 2.0, false);
            for (size_t i = 0; i < found.size(); i++) {
                CFaceDetect_Box box{static_cast<int>(std::lround((found[i].x - pad) / scale)),
                                    static_cast<int>(std::lround((found[i].y - pad) / scale)),
                                    static_cast<int>(std::lround(found[i].width / scale)),
                                    static_cast<int>(std::lround(found[i].height / scale)),
                                    i < weights.size() ? weights[i] : 0.0};
                kept.push_back(box);
            }
        }
        return handOut(kept, boxes, count, message);
    });
}

extern "C" void CFaceDetect_PeopleClose(CFaceDetect_People *people) {
    delete people;
}

extern "C" int CFaceDetect_YuNetNew(const char *path, CFaceDetect_YuNet **net, char **message) {
    return guarded(message, [&]() -> int {
        if (!path || !net) return report(CFaceDetect_BadArgument, message, "no path");
        *net = nullptr;
        struct stat info;
        if (stat(path, &info) != 0 || !S_ISREG(info.st_mode)) {
            return report(CFaceDetect_LoadFailed, message, std::string("model file not found: ") + path);
        }
        auto *made = new CFaceDetect_YuNet();
        try {
            made->net = cv::dnn::readNetFromONNX(path);
        } catch (const cv::Exception &e) {
            delete made;
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not an ONNX model OpenCV can load: ") + path);
        }
        made->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        made->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        made->outputs = {"cls_8", "cls_16", "cls_32", "obj_8", "obj_16", "obj_32",
                         "bbox_8", "bbox_16", "bbox_32", "kps_8", "kps_16", "kps_32"};
        std::vector<cv::String> names = made->net.getUnconnectedOutLayersNames();
        for (const auto &wanted : made->outputs) {
            if (std::find(names.begin(), names.end(), wanted) == names.end()) {
                delete made;
                return report(CFaceDetect_LoadFailed, message,
                              std::string("not a YuNet model (no output '") + wanted + "'): " + path);
            }
        }
        *net = made;
        return CFaceDetect_OK;
    });
}

extern "C" int CFaceDetect_YuNetDetect(CFaceDetect_YuNet *net, const uint8_t *rgb, int width,
                                       int height, size_t stride, float score_threshold,
                                       float nms_threshold, CFaceDetect_YuNetFace **faces,
                                       size_t *count, char **message) {
    return guarded(message, [&]() -> int {
        if (!net || !rgb || !faces || !count || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width) * 3) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to YuNet detect");
        }
        *faces = nullptr;
        *count = 0;
        cv::Mat image(height, width, CV_8UC3, const_cast<uint8_t *>(rgb), stride);
        int paddedWidth = (width + 31) / 32 * 32;
        int paddedHeight = (height + 31) / 32 * 32;
        cv::Mat padded;
        cv::copyMakeBorder(image, padded, 0, paddedHeight - height, 0, paddedWidth - width,
                           cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
        // The network was trained on BGR: swap the channels.
        cv::Mat blob = cv::dnn::blobFromImage(padded, 1.0, cv::Size(), cv::Scalar(), true, false);
        net->net.setInput(blob);
        std::vector<cv::Mat> out;
        net->net.forward(out, net->outputs);
        std::vector<cv::Rect2d> boxes;
        std::vector<float> scores;
        std::vector<CFaceDetect_YuNetFace> all;
        const int strides[3] = {8, 16, 32};
        for (int level = 0; level < 3; level++) {
            int step = strides[level];
            int cols = paddedWidth / step;
            int rows = paddedHeight / step;
            const float *cls = out[level].ptr<float>();
            const float *obj = out[level + 3].ptr<float>();
            const float *bbox = out[level + 6].ptr<float>();
            const float *kps = out[level + 9].ptr<float>();
            size_t cells = static_cast<size_t>(rows) * cols;
            if (out[level].total() < cells || out[level + 3].total() < cells ||
                out[level + 6].total() < cells * 4 || out[level + 9].total() < cells * 10) {
                return report(CFaceDetect_OpenCVError, message, "unexpected YuNet output shape");
            }
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    size_t i = static_cast<size_t>(r) * cols + c;
                    float score = std::sqrt(std::clamp(cls[i], 0.f, 1.f) * std::clamp(obj[i], 0.f, 1.f));
                    if (score < score_threshold) continue;
                    float cx = (c + bbox[i * 4]) * step;
                    float cy = (r + bbox[i * 4 + 1]) * step;
                    float w = std::exp(bbox[i * 4 + 2]) * step;
                    float h = std::exp(bbox[i * 4 + 3]) * step;
                    CFaceDetect_YuNetFace face{};
                    face.x = cx - w / 2;
                    face.y = cy - h / 2;
                    face.width = w;
                    face.height = h;
                    face.score = score;
                    for (int n = 0; n < 5; n++) {
                        face.landmarks[2 * n] = (kps[i * 10 + 2 * n] + c) * step;
                        face.landmarks[2 * n + 1] = (kps[i * 10 + 2 * n + 1] + r) * step;
                    }
                    all.push_back(face);
                    boxes.emplace_back(face.x, face.y, w, h);
                    scores.push_back(score);
                }
            }
        }
        std::vector<int> keep;
        cv::dnn::NMSBoxes(boxes, scores, score_threshold, nms_threshold, keep);
        std::vector<CFaceDetect_YuNetFace> kept;
        for (int i : keep) kept.push_back(all[i]);
        return handOut(kept, faces, count, message);
    });
}

extern "C" void CFaceDetect_YuNetClose(CFaceDetect_YuNet *net) {
    delete net;
}

extern "C" void CFaceDetect_Free(void *pointer) {
    std::free(pointer);
}
