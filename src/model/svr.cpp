#include "model/svr.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace speedqa::model {
namespace {

// Support vectors a model may have: libvmaf's models have a few hundred; the
// limit only keeps a corrupt count from asking for gigabytes.
constexpr long kMaxSupportVectors = 1'000'000;

std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (size_t i = 0; i < s.size() && i < 40; i++) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
    }
    return out + (s.size() > 40 ? "...\"" : "\"");
}

std::vector<std::string_view> split(std::string_view line, std::string_view separators) {
    std::vector<std::string_view> out;
    size_t pos = 0;
    while (pos < line.size()) {
        const size_t begin = line.find_first_not_of(separators, pos);
        if (begin == std::string_view::npos) break;
        size_t end = line.find_first_of(separators, begin);
        if (end == std::string_view::npos) end = line.size();
        out.push_back(line.substr(begin, end - begin));
        pos = end;
    }
    return out;
}

// A number as libsvm writes it and libvmaf's stream extraction reads it
// (decimal, optional sign, fraction and exponent), converted by strtod as
// libstdc++ does. Overflow fails there too; NaN and inf are not numbers here.
double read_real(std::string_view tok, const std::string& what) {
    size_t i = 0;
    if (i < tok.size() && (tok[i] == '+' || tok[i] == '-')) i++;
    size_t mantissa = 0;
    while (i < tok.size() && tok[i] >= '0' && tok[i] <= '9') i++, mantissa++;
    if (i < tok.size() && tok[i] == '.') {
        i++;
        while (i < tok.size() && tok[i] >= '0' && tok[i] <= '9') i++, mantissa++;
    }
    bool ok = mantissa > 0;
    if (ok && i < tok.size() && (tok[i] == 'e' || tok[i] == 'E')) {
        i++;
        if (i < tok.size() && (tok[i] == '+' || tok[i] == '-')) i++;
        size_t exp_digits = 0;
        while (i < tok.size() && tok[i] >= '0' && tok[i] <= '9') i++, exp_digits++;
        ok = exp_digits > 0;
    }
    if (!ok || i != tok.size()) throw Error(what + ": " + quoted(tok) + " is not a number");
    const double v = std::strtod(std::string(tok).c_str(), nullptr);
    if (!std::isfinite(v)) throw Error(what + ": " + quoted(tok) + " is out of the range of a double");
    return v;
}

long read_integer(std::string_view tok, const std::string& what, long min, long max) {
    const std::string s(tok);
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(s.c_str(), &end, 10);
    const bool digits_only = !s.empty() && s.find_first_not_of("+-0123456789") == std::string::npos;
    if (!digits_only || end != s.c_str() + s.size() || errno == ERANGE)
        throw Error(what + ": " + quoted(tok) + " is not an integer");
    if (v < min || v > max)
        throw Error(what + ": " + std::to_string(v) + " is out of range [" + std::to_string(min) + ", " +
                    std::to_string(max) + "]");
    return v;
}

// Whether lines[from..] hold only white space (or there are none).
bool blank_from(const std::vector<std::string_view>& lines, size_t from) {
    for (size_t i = from; i < lines.size(); i++)
        if (!split(lines[i], " \t\r\v\f").empty()) return false;
    return true;
}

// What the header said, before the support vectors.
struct Header {
    std::string svm_type, kernel_type;
    bool has_gamma = false, has_rho = false;
    double gamma = 0, rho = 0;
    long nr_class = 0, total_sv = 0;
};

void read_header_line(const std::vector<std::string_view>& tok, Header& h, std::vector<std::string>& seen) {
    const std::string key(tok[0]);
    for (const std::string& s : seen)
        if (s == key) throw Error("libsvm header: \"" + key + "\" appears twice");
    seen.push_back(key);
    const size_t values = tok.size() - 1;
    auto want = [&](size_t n) {
        if (values != n)
            throw Error("libsvm header: \"" + key + "\" needs " + std::to_string(n) + " value" + (n == 1 ? "" : "s") +
                        ", found " + std::to_string(values));
    };
    // counts of label/nr_sv/rho/probA/probB follow nr_class, as libsvm writes them
    auto need_classes = [&] {
        if (h.nr_class == 0) throw Error("libsvm header: \"" + key + "\" comes before nr_class");
    };
    const std::string what = "libsvm header: " + key;
    if (key == "svm_type") {
        want(1);
        h.svm_type = tok[1];
    } else if (key == "kernel_type") {
        want(1);
        h.kernel_type = tok[1];
    } else if (key == "degree") {
        want(1);
        read_integer(tok[1], what, INT_MIN, INT_MAX);
    } else if (key == "gamma") {
        want(1);
        h.gamma = read_real(tok[1], what);
        h.has_gamma = true;
    } else if (key == "coef0") {
        want(1);
        read_real(tok[1], what);
    } else if (key == "nr_class") {
        want(1);
        h.nr_class = read_integer(tok[1], what, 2, 2);  // regression: libsvm writes 2
    } else if (key == "total_sv") {
        want(1);
        h.total_sv = read_integer(tok[1], what, 1, kMaxSupportVectors);
    } else if (key == "rho" || key == "probA" || key == "probB") {
        need_classes();
        want(static_cast<size_t>(h.nr_class * (h.nr_class - 1) / 2));
        const double v = read_real(tok[1], what);
        if (key == "rho") {
            h.rho = v;
            h.has_rho = true;
        }
    } else if (key == "label" || key == "nr_sv") {
        need_classes();
        want(static_cast<size_t>(h.nr_class));
        for (size_t i = 1; i < tok.size(); i++) read_integer(tok[i], what, INT_MIN, INT_MAX);
    } else {
        throw Error("libsvm header: unknown line " + quoted(tok[0]));
    }
}

}  // namespace

Svr Svr::parse(std::string_view text, int dims) {
    std::vector<std::string_view> lines;
    for (size_t pos = 0; pos <= text.size();) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        lines.push_back(text.substr(pos, nl - pos));
        pos = nl + 1;
    }

    Header h;
    std::vector<std::string> seen;
    size_t li = 0;
    for (;; li++) {
        if (li == lines.size()) throw Error("libsvm model text: no \"SV\" line before the support vectors");
        const auto tok = split(lines[li], " ");
        if (tok.size() == 1 && tok[0] == "SV") break;
        if (tok.empty()) throw Error("libsvm header: empty line " + std::to_string(li + 1));
        read_header_line(tok, h, seen);
    }
    if (h.svm_type != "nu_svr")
        throw Error("libsvm header: svm_type " + (h.svm_type.empty() ? std::string("missing") : quoted(h.svm_type)) +
                    " (a VMAF model is nu_svr)");
    if (h.kernel_type != "rbf")
        throw Error("libsvm header: kernel_type " +
                    (h.kernel_type.empty() ? std::string("missing") : quoted(h.kernel_type)) +
                    " (VMAF models use rbf, the only kernel speedqa evaluates)");
    if (!h.has_gamma) throw Error("libsvm header: no gamma");
    if (h.nr_class == 0) throw Error("libsvm header: no nr_class");
    if (h.total_sv == 0) throw Error("libsvm header: no total_sv");
    if (!h.has_rho) throw Error("libsvm header: no rho");

    Svr m;
    m.dims_ = dims;
    m.gamma_ = h.gamma;
    m.rho_ = h.rho;
    for (long i = 0; i < h.total_sv; i++) {
        li++;
        const std::string where = "support vector " + std::to_string(i + 1);
        // libvmaf reads these lines with stream extraction, which skips any white space
        const auto tok = li < lines.size() ? split(lines[li], " \t\r\v\f") : std::vector<std::string_view>{};
        if (tok.empty()) {
            if (blank_from(lines, li))
                throw Error("libsvm model text: " + std::to_string(i) + " support vectors, total_sv says " +
                            std::to_string(h.total_sv));
            throw Error(where + ": empty line");
        }
        m.coef_.push_back(read_real(tok[0], where + ", coefficient"));
        // rows grow as lines come, so a wrong total_sv cannot ask for much memory
        m.sv_.resize(m.sv_.size() + static_cast<size_t>(dims), 0.0);
        double* row = &m.sv_[m.sv_.size() - static_cast<size_t>(dims)];
        long last = 0;
        for (size_t t = 1; t < tok.size(); t++) {
            const size_t colon = tok[t].find(':');
            if (colon == std::string_view::npos) throw Error(where + ": " + quoted(tok[t]) + " is not index:value");
            const long index = read_integer(tok[t].substr(0, colon), where + ", index", 1, dims);
            if (index <= last)
                throw Error(where + ": index " + std::to_string(index) + " after " + std::to_string(last) +
                            " (indices must ascend)");
            row[index - 1] = read_real(tok[t].substr(colon + 1), where + ", component " + std::to_string(index));
            last = index;
        }
    }
    if (!blank_from(lines, li + 1))
        throw Error("libsvm model text: more support vectors than total_sv (" + std::to_string(h.total_sv) + ")");
    return m;
}

double Svr::decision(const double* x) const {
    const size_t n = static_cast<size_t>(dims_);
    double sum = 0;
    for (size_t i = 0; i < coef_.size(); i++) {
        const double* s = &sv_[i * n];
        double dist = 0;
        for (size_t k = 0; k < n; k++) {
            const double d = x[k] - s[k];
            dist += d * d;
        }
        sum += coef_[i] * std::exp(-gamma_ * dist);
    }
    return sum - rho_;
}

}  // namespace speedqa::model
