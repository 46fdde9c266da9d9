#include "plot/shards.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "model/json.hpp"

namespace speedqa::plot {
namespace {

using model::json::Type;
using model::json::Value;

struct Shard {
    std::string path, version;
    long long first = 0, end = 0;
    bool clip_end = false;
    double seconds = 0;
    int width = 0, height = 0;
    std::vector<std::string> names;
    std::vector<std::vector<double>> frames;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw Error(path + ": " + what); }

const Value& member(const std::string& path, const Value& obj, const char* key, Type type, const std::string& where) {
    const Value* v = obj.find(key);
    if (!v) fail(path, where + " has no \"" + key + "\"");
    if (v->type != type) fail(path, where + ": \"" + key + "\" is " + model::json::type_name(v->type));
    return *v;
}

long long whole(const std::string& path, const Value& v, const std::string& what) {
    if (v.number != std::floor(v.number) || std::fabs(v.number) > 1e15) fail(path, what + " is not a whole number");
    return static_cast<long long>(v.number);
}

Shard read_shard(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path, "cannot read it");
    std::stringstream text;
    text << in.rdbuf();
    Value doc;
    try {
        doc = model::json::parse(text.str());
    } catch (const model::json::SyntaxError& e) {
        fail(path, std::string("not JSON: ") + e.what());
    }
    if (doc.type != Type::object || !doc.find("speedqa_shard"))
        fail(path, "not a shard of a frame range (a speedqa JSON file with \"speedqa_shard\")");
    Shard s;
    s.path = path;
    s.version = member(path, doc, "version", Type::string, "the shard").text;
    const Value& info = member(path, doc, "speedqa_shard", Type::object, "the shard");
    s.first = whole(path, member(path, info, "first", Type::number, "speedqa_shard"), "first");
    s.end = whole(path, member(path, info, "end", Type::number, "speedqa_shard"), "end");
    s.clip_end = member(path, info, "clip_end", Type::boolean, "speedqa_shard").boolean;
    s.seconds = member(path, info, "seconds", Type::number, "speedqa_shard").number;
    s.width = static_cast<int>(whole(path, member(path, info, "width", Type::number, "speedqa_shard"), "width"));
    s.height = static_cast<int>(whole(path, member(path, info, "height", Type::number, "speedqa_shard"), "height"));
    const Value& frames = member(path, doc, "frames", Type::array, "the shard");
    if (s.first < 0 || s.end - s.first != static_cast<long long>(frames.items.size()))
        fail(path, "its range " + std::to_string(s.first) + ":" + std::to_string(s.end) + " does not hold its " +
                       std::to_string(frames.items.size()) + " frames");
    for (size_t i = 0; i < frames.items.size(); i++) {
        const std::string where = "frame " + std::to_string(s.first + static_cast<long long>(i));
        const Value& f = frames.items[i];
        if (f.type != Type::object) fail(path, where + " is not an object");
        if (whole(path, member(path, f, "frameNum", Type::number, where), where + "'s frameNum") !=
            s.first + static_cast<long long>(i))
            fail(path, where + " has another frameNum");
        const Value& m = member(path, f, "metrics", Type::object, where);
        if (i == 0) s.names = m.keys;
        else if (m.keys != s.names) fail(path, where + " has other metrics than the shard's first frame");
        std::vector<double> row;
        for (const Value& v : m.members) {
            if (v.type == Type::null) row.push_back(std::numeric_limits<double>::quiet_NaN());  // given in "nonfinite"
            else if (v.type == Type::number) row.push_back(v.number);
            else fail(path, where + ": a value is " + model::json::type_name(v.type));
        }
        s.frames.push_back(std::move(row));
    }
    // non-finite values exactly: inf, -inf, nan, -nan
    for (const Value& e : member(path, doc, "nonfinite", Type::array, "the shard").items) {
        if (e.type != Type::array || e.items.size() != 3 || e.items[0].type != Type::number ||
            e.items[1].type != Type::string || e.items[2].type != Type::string)
            fail(path, "an entry of \"nonfinite\" is not [frame, metric, value]");
        const long long k = whole(path, e.items[0], "a nonfinite frame") - s.first;
        const auto m = std::find(s.names.begin(), s.names.end(), e.items[1].text) - s.names.begin();
        if (k < 0 || k >= static_cast<long long>(s.frames.size()) || m == static_cast<long>(s.names.size()))
            fail(path, "an entry of \"nonfinite\" names no value of the shard");
        const std::string& t = e.items[2].text;
        const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
        double v;
        if (t == "inf") v = inf;
        else if (t == "-inf") v = -inf;
        else if (t == "nan") v = nan;
        else if (t == "-nan") v = -nan;
        else fail(path, "\"nonfinite\" value " + t + " is not inf, -inf, nan or -nan");
        s.frames[static_cast<size_t>(k)][static_cast<size_t>(m)] = v;
    }
    return s;
}

std::string range_text(const Shard& s) { return std::to_string(s.first) + ":" + std::to_string(s.end); }

}  // namespace

io::ScoreTable merge_shards(const std::vector<std::string>& paths) {
    if (paths.empty()) throw Error("merge: no shards given");
    std::vector<Shard> shards;
    for (const std::string& p : paths) shards.push_back(read_shard(p));
    std::stable_sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) { return a.first < b.first; });
    io::ScoreTable t;
    const Shard& head = shards.front();
    if (head.first != 0) fail(head.path, "the shards start at frame " + std::to_string(head.first) + ", not 0 (frames 0:" +
                                             std::to_string(head.first) + " are missing)");
    double seconds = 0;
    long long next = 0;
    for (size_t i = 0; i < shards.size(); i++) {
        const Shard& s = shards[i];
        if (s.first > next)
            fail(s.path, "frames " + std::to_string(next) + ":" + std::to_string(s.first) + " are in no shard");
        if (s.first < next)
            fail(s.path, "its frames " + range_text(s) + " overlap " + shards[i - 1].path + "'s " + range_text(shards[i - 1]));
        if (s.names != head.names) fail(s.path, "its metrics differ from " + head.path + "'s");
        if (s.width != head.width || s.height != head.height || s.version != head.version)
            fail(s.path, "its video size or speedqa version differs from " + head.path + "'s");
        if (s.clip_end && i + 1 < shards.size())
            fail(shards[i + 1].path, "its frames " + range_text(shards[i + 1]) + " lie past the clip's end at " +
                                         std::to_string(s.end) + " (" + s.path + ")");
        for (const auto& f : s.frames) t.frames.push_back(f);
        seconds += s.seconds;
        next = s.end;
    }
    if (!shards.back().clip_end)
        fail(shards.back().path, "the shards end at frame " + std::to_string(next) +
                                     ", before the clip's end (no shard reached it: the last one runs to the end, e.g. " +
                                     std::to_string(shards.back().first) + ":)");
    t.metric_names = head.names;
    t.width = head.width;
    t.height = head.height;
    t.version = head.version;
    t.fps = seconds > 0 ? static_cast<double>(t.frames.size()) / seconds : std::numeric_limits<double>::infinity();
    return t;
}

}  // namespace speedqa::plot
