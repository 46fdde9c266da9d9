#include "plot/score_file.hpp"

#include <expat.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "model/json.hpp"

namespace speedqa::plot {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Frames and values as they are read, in any layout; checked and finished by finish().
class Collector {
public:
    explicit Collector(std::string name) : name_(std::move(name)) {}

    [[noreturn]] void fail(const std::string& what) const { throw Error(name_ + ": " + what); }

    void begin_frame(long long num) {
        if (num < 0) fail("frame number " + std::to_string(num) + " is negative");
        if (!file_.frame_nums.empty() && num <= file_.frame_nums.back())
            fail("frame " + std::to_string(num) + " follows frame " + std::to_string(file_.frame_nums.back()) +
                 " (frames must be in ascending order)");
        file_.frame_nums.push_back(num);
    }
    void value(const std::string& metric, double v) {
        MetricScores& m = metric_named(metric);
        if (m.values.size() == file_.frame_nums.size())
            fail("frame " + std::to_string(file_.frame_nums.back()) + " has \"" + metric + "\" twice");
        m.values.resize(file_.frame_nums.size() - 1, kNaN);  // frames that lacked it
        m.values.push_back(v);
    }
    void pooled(const std::string& metric, const io::Pooled& p) { metric_named(metric).pooled = p; }

    ScoreFile finish() {
        if (file_.frame_nums.empty()) fail("no frames in this score file");
        if (file_.metrics.empty()) fail("no metrics in this score file");
        for (MetricScores& m : file_.metrics) {
            m.values.resize(file_.frame_nums.size(), kNaN);
            if (!m.pooled.valid) m.pooled = pool(m.values);
        }
        file_.path = name_;
        return std::move(file_);
    }

private:
    MetricScores& metric_named(const std::string& metric) {
        auto it = index_.find(metric);
        if (it != index_.end()) return file_.metrics[it->second];
        index_[metric] = file_.metrics.size();
        file_.metrics.push_back({metric, {}, {}});
        return file_.metrics.back();
    }
    // libvmaf's pooling (as the command's), over the frames the file has.
    static io::Pooled pool(const std::vector<double>& values) {
        io::ScoreTable t;
        t.metric_names = {"m"};
        for (double v : values) t.frames.push_back({v});
        return io::pool_metric(t, 0);
    }

    std::string name_;
    ScoreFile file_;
    std::map<std::string, size_t> index_;
};

double number_text(const Collector& c, const char* text, const std::string& what) {
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (end == text || *end) c.fail(what + ": \"" + text + "\" is not a number");
    return v;
}

// ---- JSON: {"frames": [{"frameNum": 0, "metrics": {...}}], "pooled_metrics": {...}}

using model::json::Type;
using model::json::Value;

double json_number(const Collector& c, const Value& v, const std::string& what) {
    if (v.type == Type::null) return kNaN;  // inf and nan print as null
    if (v.type != Type::number) c.fail(what + " is " + model::json::type_name(v.type) + ", not a number");
    return v.number;
}

const Value& json_member(const Collector& c, const Value& obj, const char* key, Type type, const std::string& where) {
    const Value* v = obj.find(key);
    if (!v || v->type != type)
        c.fail(where + " has no \"" + key + "\" " + (type == Type::array ? "array" : type == Type::object ? "object" : "number"));
    return *v;
}

ScoreFile read_json(const std::string& text, Collector c) {
    Value doc;
    try {
        doc = model::json::parse(text);
    } catch (const model::json::SyntaxError& e) {
        c.fail(std::string("not valid JSON: ") + e.what());
    }
    if (doc.type != Type::object) c.fail("not a score file (the JSON is not an object)");
    for (const Value& f : json_member(c, doc, "frames", Type::array, "the file").items) {
        if (f.type != Type::object) c.fail("line " + std::to_string(f.line) + ": a frame is not an object");
        const std::string where = "the frame at line " + std::to_string(f.line);
        const Value& num = json_member(c, f, "frameNum", Type::number, where);
        if (num.number != std::floor(num.number) || std::abs(num.number) > 1e15) c.fail(where + ": frameNum is not an integer");
        c.begin_frame(static_cast<long long>(num.number));
        const Value& metrics = json_member(c, f, "metrics", Type::object, where);
        for (size_t i = 0; i < metrics.keys.size(); i++)
            c.value(metrics.keys[i], json_number(c, metrics.members[i], where + ": \"" + metrics.keys[i] + "\""));
    }
    if (const Value* pooled = doc.find("pooled_metrics"); pooled && pooled->type == Type::object) {
        for (size_t i = 0; i < pooled->keys.size(); i++) {
            const Value& m = pooled->members[i];
            const std::string where = "pooled \"" + pooled->keys[i] + "\"";
            if (m.type != Type::object || !m.find("mean")) continue;  // no frames pooled
            io::Pooled p;
            p.valid = true;
            const auto field = [&](const char* k) { return m.find(k) ? json_number(c, *m.find(k), where + " " + k) : kNaN; };
            p.min = field("min");
            p.max = field("max");
            p.mean = field("mean");
            p.harmonic_mean = field("harmonic_mean");
            c.pooled(pooled->keys[i], p);
        }
    }
    return c.finish();
}

// ---- XML: <VMAF><frames><frame frameNum="0" m="v" .../></frames><pooled_metrics><metric name=.../>

struct XmlState {
    Collector* c;
    XML_Parser parser;
    int depth = 0;
    bool root_seen = false;
    std::string error;  // the first problem, reported after the parser stops
};

void xml_start(void* data, const XML_Char* name, const XML_Char** attrs) {
    XmlState& s = *static_cast<XmlState*>(data);
    s.depth++;
    try {
        if (s.depth == 1) {
            if (std::strcmp(name, "VMAF") != 0) s.c->fail(std::string("not a score file (the XML root is <") + name + ">, not <VMAF>)");
            s.root_seen = true;
        } else if (s.depth == 3 && std::strcmp(name, "frame") == 0) {
            const std::string where = "line " + std::to_string(XML_GetCurrentLineNumber(s.parser));
            const XML_Char** num = attrs;
            while (*num && std::strcmp(*num, "frameNum") != 0) num += 2;
            if (!*num) s.c->fail(where + ": a <frame> without frameNum");
            const double n = number_text(*s.c, num[1], where + ": frameNum");
            if (n != std::floor(n) || std::abs(n) > 1e15) s.c->fail(where + ": frameNum is not an integer");
            s.c->begin_frame(static_cast<long long>(n));
            for (const XML_Char** a = attrs; *a; a += 2)
                if (a != num) s.c->value(a[0], number_text(*s.c, a[1], where + ": " + a[0]));
        } else if (s.depth == 3 && std::strcmp(name, "metric") == 0) {
            const std::string where = "line " + std::to_string(XML_GetCurrentLineNumber(s.parser));
            std::string metric;
            io::Pooled p;
            for (const XML_Char** a = attrs; *a; a += 2) {
                const std::string k = a[0];
                if (k == "name") metric = a[1];
                else if (k == "min") p.min = number_text(*s.c, a[1], where + ": min");
                else if (k == "max") p.max = number_text(*s.c, a[1], where + ": max");
                else if (k == "mean") p.mean = number_text(*s.c, a[1], where + ": mean"), p.valid = true;
                else if (k == "harmonic_mean") p.harmonic_mean = number_text(*s.c, a[1], where + ": harmonic_mean");
            }
            if (!metric.empty() && p.valid) s.c->pooled(metric, p);
        }
    } catch (const Error& e) {
        if (s.error.empty()) s.error = e.what();
        XML_StopParser(s.parser, XML_FALSE);
    }
}

void xml_end(void* data, const XML_Char*) { static_cast<XmlState*>(data)->depth--; }

ScoreFile read_xml(const std::string& text, Collector c) {
    if (text.size() > static_cast<size_t>(std::numeric_limits<int>::max())) c.fail("too large for an XML score file");
    XML_Parser parser = XML_ParserCreate("UTF-8");
    if (!parser) throw std::bad_alloc();
    XmlState s{&c, parser, 0, false, {}};
    XML_SetUserData(parser, &s);
    XML_SetElementHandler(parser, xml_start, xml_end);
    const bool ok = XML_Parse(parser, text.data(), static_cast<int>(text.size()), XML_TRUE) == XML_STATUS_OK;
    const std::string why = ok ? "" : "line " + std::to_string(XML_GetCurrentLineNumber(parser)) + ": " +
                                          XML_ErrorString(XML_GetErrorCode(parser));
    XML_ParserFree(parser);
    if (!s.error.empty()) throw Error(s.error);
    if (!ok) c.fail("not valid XML: " + why);
    return c.finish();
}

// ---- CSV: "Frame,m1,m2,...," then "0,v1,v2,...," (vmaf --csv)

std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream in(line);
    std::string f;
    while (std::getline(in, f, ',')) out.push_back(f);
    return out;
}

ScoreFile read_csv(const std::string& text, Collector c) {
    std::stringstream in(text);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> header = csv_fields(line);
    for (long long row = 2; std::getline(in, line); row++) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        const std::vector<std::string> f = csv_fields(line);
        const std::string where = "line " + std::to_string(row);
        if (f.size() != header.size())
            c.fail(where + ": " + std::to_string(f.size()) + " field(s) where the header has " + std::to_string(header.size()));
        const double n = number_text(c, f[0].c_str(), where + ": Frame");
        if (n != std::floor(n) || std::abs(n) > 1e15) c.fail(where + ": Frame is not an integer");
        c.begin_frame(static_cast<long long>(n));
        for (size_t i = 1; i < f.size(); i++) c.value(header[i], number_text(c, f[i].c_str(), where + ": " + header[i]));
    }
    return c.finish();
}

}  // namespace

const MetricScores* ScoreFile::find(const std::string& metric) const {
    for (const MetricScores& m : metrics)
        if (m.name == metric) return &m;
    return nullptr;
}

ScoreFile parse_score_text(const std::string& text, const std::string& name) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    const char c = first == std::string::npos ? '\0' : text[first];
    if (c == '{') return read_json(text, Collector(name));
    if (c == '<') return read_xml(text, Collector(name));
    if (text.compare(first == std::string::npos ? 0 : first, 6, "Frame,") == 0) return read_csv(text.substr(first), Collector(name));
    throw Error(name + ": not a score file (expected the JSON, XML or CSV that speedqa or vmaf writes)");
}

ScoreFile read_score_file(const std::string& path) {
    if (std::filesystem::is_directory(path)) throw Error(path + ": is a directory, not a score file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open: " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw Error(path + ": cannot read: " + std::strerror(errno));
    return parse_score_text(text.str(), path);
}

}  // namespace speedqa::plot
