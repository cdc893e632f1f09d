// Face regions in XMP, read and written through Exiv2 (the metadata library
// digiKam uses), behind the pure-C header: Exiv2's XmpParser decodes a packet
// (embedded XMP, which libvips hands over with the header, or a sidecar's
// text) into keys such as
//   Xmp.mwg-rs.Regions/mwg-rs:RegionList[2]/mwg-rs:Area/stArea:x
//   Xmp.MP.RegionInfo/MPRI:Regions[1]/MPReg:PersonDisplayName
// whose prefixes are Exiv2's own for each namespace, whatever the file calls
// them. Every extern "C" body catches; Exiv2's own log is silenced (a bad
// packet is a status and message here, said once by the caller).
#include "CFaceDetect.h"
#include "status.hpp"

#include <exiv2/exiv2.hpp>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iomanip>
#include <locale>
#include <memory>
#include <map>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <vector>

struct CFaceDetect_XmpRegions {
    struct Region {
        int schema = 0;
        int position = 0;
        std::map<std::string, std::string> fields;
    };
    std::vector<Region> regions;
    std::vector<CFaceDetect_XmpRegion> views;
    std::string appliedWidth, appliedHeight, appliedUnit;
    bool hasWidth = false, hasHeight = false, hasUnit = false;
};

namespace {

using cfacedetect::report;

template <typename Body> int guarded(char **message, Body body) {
    return cfacedetect::guardedAs(CFaceDetect_BadArgument, "Exiv2: ", message, body);
}

// The XMP toolkit is not thread-safe on its own: Exiv2 takes a lock function
// once, before the first packet; a process-wide mutex serialises the toolkit.
std::mutex toolkit;

void lockToolkit(void *, bool lock) {
    if (lock) {
        toolkit.lock();
    } else {
        toolkit.unlock();
    }
}

void startExiv2() {
    static std::once_flag once;
    std::call_once(once, [] {
        Exiv2::LogMsg::setLevel(Exiv2::LogMsg::mute);
        Exiv2::XmpParser::initialize(lockToolkit, nullptr);
    });
}

// The part of `key` after `prefix` and a 1-based index: "[N]/rest" -> (N, rest).
bool indexed(const std::string &key, const std::string &prefix, int &index, std::string &rest) {
    if (key.compare(0, prefix.size(), prefix) != 0) return false;
    size_t close = key.find(']', prefix.size());
    if (close == std::string::npos || close == prefix.size()) return false;
    index = 0;
    for (size_t i = prefix.size(); i < close; ++i) {
        char c = key[i];
        if (c < '0' || c > '9' || index > 100000) return false;
        index = index * 10 + (c - '0');
    }
    if (close + 1 >= key.size() || key[close + 1] != '/') return false;
    rest = key.substr(close + 2);
    return true;
}

// Case-insensitive search for `needle` (ASCII) in `text`.
bool containsNoCase(const char *text, size_t length, const char *needle) {
    size_t n = std::strlen(needle);
    for (size_t i = 0; i + n <= length; ++i) {
        size_t j = 0;
        while (j < n && std::tolower(static_cast<unsigned char>(text[i + j])) == needle[j]) ++j;
        if (j == n) return true;
    }
    return false;
}

const char *field(const CFaceDetect_XmpRegions::Region &region, const char *name) {
    auto found = region.fields.find(name);
    return found == region.fields.end() ? nullptr : found->second.c_str();
}

std::string number(double value) {
    std::ostringstream text;
    text.imbue(std::locale::classic());
    text << std::fixed << std::setprecision(6) << value;
    return text.str();
}

using Found = std::map<std::pair<int, int>, CFaceDetect_XmpRegions::Region>;

// One decoded key and value: a field of an MWG region or a Microsoft one
// (into `found`, by schema and position), or one of MWG's applied
// dimensions (into `result`); anything else is left.
void collect(const Exiv2::Xmpdatum &datum, Found &found, CFaceDetect_XmpRegions &result) {
    static const std::string mwg = "Xmp.mwg-rs.Regions/mwg-rs:RegionList[";
    static const std::string mp = "Xmp.MP.RegionInfo/MPRI:Regions[";
    static const std::string applied = "Xmp.mwg-rs.Regions/mwg-rs:AppliedToDimensions/stDim:";
    const std::string key = datum.key();
    int index = 0;
    std::string rest;
    if (indexed(key, mwg, index, rest)) {
        auto &region = found[{0, index}];
        region.schema = 0;
        region.position = index;
        static const std::map<std::string, std::string> names = {
            {"mwg-rs:Name", "name"},         {"mwg-rs:Type", "type"},         {"mwg-rs:Area/stArea:x", "x"},
            {"mwg-rs:Area/stArea:y", "y"},   {"mwg-rs:Area/stArea:w", "w"},   {"mwg-rs:Area/stArea:h", "h"},
            {"mwg-rs:Area/stArea:unit", "unit"},
        };
        auto name = names.find(rest);
        if (name != names.end()) region.fields[name->second] = datum.toString();
    } else if (indexed(key, mp, index, rest)) {
        auto &region = found[{1, index}];
        region.schema = 1;
        region.position = index;
        if (rest == "MPReg:PersonDisplayName") region.fields["name"] = datum.toString();
        if (rest == "MPReg:Rectangle") region.fields["rectangle"] = datum.toString();
    } else if (key.compare(0, applied.size(), applied) == 0) {
        std::string which = key.substr(applied.size());
        if (which == "w") {
            result.appliedWidth = datum.toString();
            result.hasWidth = true;
        } else if (which == "h") {
            result.appliedHeight = datum.toString();
            result.hasHeight = true;
        } else if (which == "unit") {
            result.appliedUnit = datum.toString();
            result.hasUnit = true;
        }
    }
}

// The regions found, in schema then position order, and their C views.
void keep(Found &found, CFaceDetect_XmpRegions &result) {
    for (auto &entry : found) result.regions.push_back(std::move(entry.second));
    for (const auto &region : result.regions) {
        CFaceDetect_XmpRegion view{};
        view.schema = region.schema;
        view.position = region.position;
        view.name = field(region, "name");
        view.type = field(region, "type");
        view.x = field(region, "x");
        view.y = field(region, "y");
        view.w = field(region, "w");
        view.h = field(region, "h");
        view.unit = field(region, "unit");
        view.rectangle = field(region, "rectangle");
        result.views.push_back(view);
    }
}

}  // namespace

extern "C" int CFaceDetect_XmpRegionsRead(const char *packet, size_t length, CFaceDetect_XmpRegions **out,
                                          char **message) {
    if (!out) return report(CFaceDetect_BadArgument, message, "no result given");
    *out = nullptr;
    if (!packet || length == 0) return report(CFaceDetect_BadArgument, message, "empty XMP");
    // XMP has no use for a DTD; refusing one keeps entity expansion (the
    // "billion laughs") and external entities out of the parser entirely.
    if (containsNoCase(packet, length, "<!doctype") || containsNoCase(packet, length, "<!entity")) {
        return report(CFaceDetect_BadArgument, message, "XMP with a DOCTYPE or an entity declaration");
    }
    return guarded(message, [&] {
        startExiv2();
        Exiv2::XmpData data;
        if (Exiv2::XmpParser::decode(data, std::string(packet, length)) != 0) {
            return report(CFaceDetect_BadArgument, message, "not well-formed XMP");
        }
        auto result = std::make_unique<CFaceDetect_XmpRegions>();
        Found found;
        for (const auto &datum : data) collect(datum, found, *result);
        keep(found, *result);
        *out = result.release();
        return static_cast<int>(CFaceDetect_OK);
    });
}

extern "C" size_t CFaceDetect_XmpRegionCount(const CFaceDetect_XmpRegions *regions) {
    return regions ? regions->views.size() : 0;
}

extern "C" const CFaceDetect_XmpRegion *CFaceDetect_XmpRegionAt(const CFaceDetect_XmpRegions *regions, size_t index) {
    if (!regions || index >= regions->views.size()) return nullptr;
    return &regions->views[index];
}

extern "C" const char *CFaceDetect_XmpAppliedWidth(const CFaceDetect_XmpRegions *regions) {
    return regions && regions->hasWidth ? regions->appliedWidth.c_str() : nullptr;
}

extern "C" const char *CFaceDetect_XmpAppliedHeight(const CFaceDetect_XmpRegions *regions) {
    return regions && regions->hasHeight ? regions->appliedHeight.c_str() : nullptr;
}

extern "C" const char *CFaceDetect_XmpAppliedUnit(const CFaceDetect_XmpRegions *regions) {
    return regions && regions->hasUnit ? regions->appliedUnit.c_str() : nullptr;
}

extern "C" void CFaceDetect_XmpRegionsFree(CFaceDetect_XmpRegions *regions) {
    delete regions;
}

extern "C" int CFaceDetect_XmpRegionsWrite(const CFaceDetect_XmpFace *faces, size_t count, int width, int height,
                                           char **packet, char **message) {
    if (!packet || (!faces && count > 0) || width <= 0 || height <= 0) {
        return report(CFaceDetect_BadArgument, message, "bad arguments to XmpRegionsWrite");
    }
    *packet = nullptr;
    return guarded(message, [&] {
        startExiv2();
        Exiv2::XmpData data;
        Exiv2::XmpTextValue structure("");
        structure.setXmpStruct();
        Exiv2::XmpTextValue bag("");
        bag.setXmpArrayType(Exiv2::XmpValue::xaBag);
        const std::string regions = "Xmp.mwg-rs.Regions";
        data.add(Exiv2::XmpKey(regions), &structure);
        data.add(Exiv2::XmpKey(regions + "/mwg-rs:AppliedToDimensions"), &structure);
        data[regions + "/mwg-rs:AppliedToDimensions/stDim:w"] = std::to_string(width);
        data[regions + "/mwg-rs:AppliedToDimensions/stDim:h"] = std::to_string(height);
        data[regions + "/mwg-rs:AppliedToDimensions/stDim:unit"] = "pixel";
        data.add(Exiv2::XmpKey(regions + "/mwg-rs:RegionList"), &bag);
        for (size_t i = 0; i < count; ++i) {
            const std::string item = regions + "/mwg-rs:RegionList[" + std::to_string(i + 1) + "]";
            data.add(Exiv2::XmpKey(item), &structure);
            data.add(Exiv2::XmpKey(item + "/mwg-rs:Area"), &structure);
            data[item + "/mwg-rs:Area/stArea:x"] = number(faces[i].x);
            data[item + "/mwg-rs:Area/stArea:y"] = number(faces[i].y);
            data[item + "/mwg-rs:Area/stArea:w"] = number(faces[i].w);
            data[item + "/mwg-rs:Area/stArea:h"] = number(faces[i].h);
            data[item + "/mwg-rs:Area/stArea:unit"] = "normalized";
            data[item + "/mwg-rs:Name"] = std::string(faces[i].name ? faces[i].name : "");
            data[item + "/mwg-rs:Type"] = "Face";
        }
        std::string text;
        if (Exiv2::XmpParser::encode(text, data, Exiv2::XmpParser::useCompactFormat, 0) != 0) {
            return report(CFaceDetect_BadArgument, message, "Exiv2 could not write the XMP");
        }
        *packet = static_cast<char *>(std::malloc(text.size() + 1));
        if (!*packet) return report(CFaceDetect_NoMemory, message, "out of memory");
        std::memcpy(*packet, text.c_str(), text.size() + 1);
        return static_cast<int>(CFaceDetect_OK);
    });
}
