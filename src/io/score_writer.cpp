// The four layouts of libvmaf's output.c, written from its observable
// behaviour: per-frame lines for the selected frames, then (XML and JSON) the
// pooled min, max, mean and harmonic mean of each metric, and an empty
// aggregate section.
#include "io/score_writer.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>

#include "core/error.hpp"
#include "io/number_format.hpp"
#include "io/pooling.hpp"

namespace speedqa::io {

namespace {

// Frames libvmaf prints: the selected ones that have a score (none when
// there are no metrics at all).
bool printed(const ScoreTable& t, size_t i) {
    return !t.metric_names.empty() && frame_selected(static_cast<unsigned>(i), t.subsample);
}

struct PoolEntry {
    const char* name;
    double Pooled::*value;
};
constexpr PoolEntry kPoolMethods[] = {
    {"min", &Pooled::min},
    {"max", &Pooled::max},
    {"mean", &Pooled::mean},
    {"harmonic_mean", &Pooled::harmonic_mean},
};

void write_xml(std::string& o, const ScoreTable& t, Precision p) {
    appendf(o, "<VMAF version=\"%s\">\n", t.version.c_str());
    appendf(o, "  <params qualityWidth=\"%d\" qualityHeight=\"%d\" />\n", t.width, t.height);
    appendf(o, "  <fyi fps=\"%.2f\" />\n", t.fps);
    o += "  <frames>\n";
    for (size_t i = 0; i < t.frames.size(); i++) {
        if (!printed(t, i)) continue;
        appendf(o, "    <frame frameNum=\"%zu\" ", i);
        for (size_t m = 0; m < t.metric_names.size(); m++) {
            o += t.metric_names[m];
            o += "=\"";
            append_value(o, t.frames[i][m], p);
            o += "\" ";
        }
        o += "/>\n";
    }
    o += "  </frames>\n";
    o += "  <pooled_metrics>\n";
    for (size_t m = 0; m < t.metric_names.size(); m++) {
        appendf(o, "    <metric name=\"%s\" ", t.metric_names[m].c_str());
        const Pooled pooled = pool_metric(t, m);
        if (pooled.valid) {
            for (const PoolEntry& e : kPoolMethods) {
                appendf(o, "%s=\"", e.name);
                append_value(o, pooled.*e.value, p);
                o += "\" ";
            }
        }
        o += "/>\n";
    }
    o += "  </pooled_metrics>\n";
    o += "  <aggregate_metrics />\n";
    o += "</VMAF>\n";
}

// JSON has no inf or nan: those print as null.
void append_json_value(std::string& o, double x, Precision p) {
    if (std::isfinite(x))
        append_value(o, x, p);
    else
        o += "null";
}

void write_json(std::string& o, const ScoreTable& t, Precision p) {
    o += "{\n";
    appendf(o, "  \"version\": \"%s\",\n", t.version.c_str());
    if (std::isfinite(t.fps))
        appendf(o, "  \"fps\": %.2f,\n", t.fps);
    else
        o += "  \"fps\": null,\n";
    o += "  \"frames\": [";
    for (size_t i = 0; i < t.frames.size(); i++) {
        if (!printed(t, i)) continue;
        o += i > 0 ? ",\n" : "\n";  // libvmaf's rule: by frame index, not by frames printed
        appendf(o, "    {\n      \"frameNum\": %zu,\n      \"metrics\": {\n", i);
        const size_t n = t.metric_names.size();
        for (size_t m = 0; m < n; m++) {
            const double v = t.frames[i][m];
            const char* comma = m + 1 < n ? "," : "";
            appendf(o, "        \"%s\": ", t.metric_names[m].c_str());
            if (std::isfinite(v)) {
                append_value(o, v, p);
                o += comma;
                o += "\n";
            } else {
                o += "null";
                o += comma;  // libvmaf ends a null line without its newline
            }
        }
        o += "      }\n    }";
    }
    o += "\n  ],\n";
    o += "  \"pooled_metrics\": {";
    for (size_t m = 0; m < t.metric_names.size(); m++) {
        o += m > 0 ? ",\n" : "\n";
        appendf(o, "    \"%s\": {", t.metric_names[m].c_str());
        const Pooled pooled = pool_metric(t, m);
        if (pooled.valid) {
            bool first = true;
            for (const PoolEntry& e : kPoolMethods) {
                o += first ? "\n" : ",\n";
                first = false;
                appendf(o, "      \"%s\": ", e.name);
                append_json_value(o, pooled.*e.value, p);
            }
        }
        o += "\n    }";
    }
    o += "\n  },\n";
    o += "  \"aggregate_metrics\": {";
    o += "\n  }\n";
    o += "}\n";
}

void write_csv(std::string& o, const ScoreTable& t, Precision p) {
    o += "Frame,";
    for (const std::string& name : t.metric_names) {
        o += name;
        o += ',';
    }
    o += '\n';
    for (size_t i = 0; i < t.frames.size(); i++) {
        if (!printed(t, i)) continue;
        appendf(o, "%zu,", i);
        for (size_t m = 0; m < t.metric_names.size(); m++) {
            append_value(o, t.frames[i][m], p);
            o += ',';
        }
        o += '\n';
    }
}

void write_sub(std::string& o, const ScoreTable& t, Precision p) {
    for (size_t i = 0; i < t.frames.size(); i++) {
        if (!printed(t, i)) continue;
        appendf(o, "{%zu}{%zu}frame: %zu|", i, i + 1, i);
        for (size_t m = 0; m < t.metric_names.size(); m++) {
            o += t.metric_names[m];
            o += ": ";
            append_value(o, t.frames[i][m], p);
            o += '|';
        }
        o += '\n';
    }
}

}  // namespace

std::string format_shard(const ScoreTable& t, const ShardInfo& info) {
    std::string o = "{\n";
    appendf(o, "  \"version\": \"%s\",\n", t.version.c_str());
    appendf(o, "  \"speedqa_shard\": {\"first\": %lld, \"end\": %lld, \"clip_end\": %s, \"seconds\": %.17g, "
               "\"width\": %d, \"height\": %d},\n",
            info.first, info.first + static_cast<long long>(t.frames.size()), info.clip_end ? "true" : "false", info.seconds,
            t.width, t.height);
    o += "  \"frames\": [";
    std::string nonfinite;
    for (size_t i = 0; i < t.frames.size(); i++) {
        const long long index = info.first + static_cast<long long>(i);
        o += i > 0 ? ",\n" : "\n";
        appendf(o, "    {\"frameNum\": %lld, \"metrics\": {", index);
        for (size_t m = 0; m < t.metric_names.size(); m++) {
            const double v = t.frames[i][m];
            appendf(o, "%s\"%s\": ", m ? ", " : "", t.metric_names[m].c_str());
            if (std::isfinite(v)) {
                appendf(o, "%.17g", v);
                continue;
            }
            o += "null";
            appendf(nonfinite, "%s\n    [%lld, \"%s\", \"%s%s\"]", nonfinite.empty() ? "" : ",", index,
                    t.metric_names[m].c_str(), std::signbit(v) ? "-" : "", std::isnan(v) ? "nan" : "inf");
        }
        o += "}}";
    }
    o += "\n  ],\n  \"nonfinite\": [" + nonfinite + (nonfinite.empty() ? "]\n" : "\n  ]\n") + "}\n";
    return o;
}

std::string format_scores(OutputFormat fmt, const ScoreTable& t, Precision p) {
    for (size_t i = 0; i < t.frames.size(); i++)
        if (t.frames[i].size() != t.metric_names.size())
            throw Error("score table: frame " + std::to_string(i) + " has " + std::to_string(t.frames[i].size()) +
                        " scores for " + std::to_string(t.metric_names.size()) + " metrics");
    std::string o;
    switch (fmt) {
    case OutputFormat::xml: write_xml(o, t, p); break;
    case OutputFormat::json: write_json(o, t, p); break;
    case OutputFormat::csv: write_csv(o, t, p); break;
    case OutputFormat::sub: write_sub(o, t, p); break;
    }
    return o;
}

void write_scores(std::FILE* out, OutputFormat fmt, const ScoreTable& t, Precision p) {
    const std::string text = format_scores(fmt, t, p);
    if (std::fwrite(text.data(), 1, text.size(), out) != text.size() || std::ferror(out))
        throw Error(std::string("cannot write the scores: ") + std::strerror(errno));
}

}  // namespace speedqa::io
