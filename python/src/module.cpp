// speedqa._speedqa: the Python binding (pybind11) of the public Scorer and of
// the readers and pooling the speedqa command uses, so that Python gets the
// command's values: score() for files, Scorer for pictures in Python buffers
// (numpy arrays). The GIL is released while frames are read and scored.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>

#include "io/pooling.hpp"
#include "io/video_reader.hpp"
#include "speedqa/speedqa.hpp"

namespace py = pybind11;

namespace speedqa::python {
namespace {

// Folders where version=NAME finds NAME.json: the models the package ships
// (set once by __init__.py), searched before $SPEEDQA_MODEL_DIR and the
// library's installed and source folders.
std::vector<std::string>& package_model_dirs() {
    static std::vector<std::string> dirs;
    return dirs;
}

PixelFormat parse_pixel_format(const py::object& p) {
    const std::string s = py::str(p);
    if (s == "420") return PixelFormat::yuv420;
    if (s == "422") return PixelFormat::yuv422;
    if (s == "444") return PixelFormat::yuv444;
    if (s == "400") return PixelFormat::yuv400;
    throw Error("pixel_format \"" + s + "\": should be \"420\", \"422\", \"444\" or \"400\"");
}

// A str is one item; otherwise a sequence of str.
std::vector<std::string> string_list(const py::object& o, const char* what) {
    if (py::isinstance<py::str>(o)) return {o.cast<std::string>()};
    const auto type_name = [](const py::handle& h) { return std::string(py::str(py::type::of(h).attr("__name__"))); };
    if (!py::isinstance<py::sequence>(o))
        throw py::type_error(std::string(what) + " must be a str or a list of str, not " + type_name(o));
    std::vector<std::string> items;
    const py::sequence seq = py::reinterpret_borrow<py::sequence>(o);
    for (size_t i = 0; i < seq.size(); i++) {
        if (!py::isinstance<py::str>(seq[i]))
            throw py::type_error(std::string(what) + "[" + std::to_string(i) + "] must be a str, not " + type_name(seq[i]));
        items.push_back(seq[i].cast<std::string>());
    }
    return items;
}

// model=None: the command's default, vmaf_v0.6.1 (as vmaf); a string: one
// --model argument; a list: several; "" or []: features only.
std::vector<std::string> model_arguments(const py::object& model) {
    if (model.is_none()) return {"version=vmaf_v0.6.1"};
    if (py::isinstance<py::str>(model) && model.cast<std::string>().empty()) return {};
    return string_list(model, "model");
}

ScorerOptions scorer_options(const py::object& model, const std::string& backend, int threads) {
    ScorerOptions o;
    o.backend = backend;
    o.threads = threads;
    o.models = model_arguments(model);
    o.model_dirs = package_model_dirs();
    return o;
}

py::dict frame_dict(const std::vector<std::string>& names, long long index, const std::vector<double>& values) {
    py::dict metrics;
    for (size_t m = 0; m < names.size(); m++) metrics[py::str(names[m])] = values[m];
    py::dict f;
    f["frameNum"] = index;
    f["metrics"] = std::move(metrics);
    return f;
}

py::list frame_list(const std::vector<std::string>& names, const std::vector<FrameScores>& frames) {
    py::list out;
    for (const FrameScores& f : frames) out.append(frame_dict(names, f.index, f.values));
    return out;
}

// libvmaf's pooled values of each metric, as the command's JSON has them.
py::dict pooled_dict(const io::ScoreTable& t) {
    py::dict pooled;
    for (size_t m = 0; m < t.metric_names.size(); m++) {
        const io::Pooled p = io::pool_metric(t, m);
        py::dict d;
        if (p.valid) {
            d["min"] = p.min;
            d["max"] = p.max;
            d["mean"] = p.mean;
            d["harmonic_mean"] = p.harmonic_mean;
        }
        pooled[py::str(t.metric_names[m])] = std::move(d);
    }
    return pooled;
}

// ---- score(): two files, as the command reads them --------------------------

std::string path_of(const py::object& p, const char* what) {
    const py::object s = py::module_::import("os").attr("fspath")(p);
    if (!py::isinstance<py::str>(s)) throw py::type_error(std::string(what) + " must be a str or os.PathLike path");
    return s.cast<std::string>();
}

void check_same_format(const io::VideoReader& a, const io::VideoReader& b) {
    if (!(a.format() == b.format()))
        throw Error("reference and distorted differ: " + a.format().describe() + " (" + a.path() + ") vs " +
                    b.format().describe() + " (" + b.path() + ")");
}

// A range of a clip's frames (--frame_range of the command): [first, end),
// end -1 for the clip's end. After scoring: whether it reached the clip's end.
struct Range {
    long long first = 0, end = -1;
    bool clip_end = false;
};

// Every frame pair the two readers share (or the range's, from the frames
// its warm-up reads before it to those its look-ahead reads after it),
// scored in the batches the engine asks for. `notes`: what the command
// would warn about. Frame indices are the clip's.
io::ScoreTable score_readers(io::VideoReader& ref, io::VideoReader& dis, Scorer& scorer, std::vector<std::string>& notes,
                             Range* range = nullptr) {
    long long start = 0, limit = -1;  // the first frame read, how many (-1: to the end)
    if (range) {
        const Scorer::FrameContext ctx = scorer.frame_context();
        start = std::max(0LL, range->first - ctx.before);
        for (long long i = 0; i < start; i++)
            if (!ref.next() || !dis.next())
                throw Error("frame_range " + std::to_string(range->first) + ": the clip has only " + std::to_string(i) + " frames");
        if (range->end >= 0) limit = range->end + ctx.after - start;
    }
    if (ref.frame_count() >= 0 && dis.frame_count() >= 0) {
        long long n = std::min(ref.frame_count(), dis.frame_count()) - start;
        scorer.expect_frames(limit >= 0 ? std::min(n, limit) : n);
    }
    io::ScoreTable table;
    table.metric_names = scorer.metric_names();
    std::vector<FrameScores> done;
    std::vector<io::FramePtr> held_ref, held_dis;  // the batch's frames, alive until scored
    io::RecentFrames recent;                       // and the ones before it
    std::vector<Picture> pics_ref, pics_dis;
    long long frames = 0;
    for (bool more = true; more;) {
        held_ref.clear();
        held_dis.clear();
        pics_ref.clear();
        pics_dis.clear();
        while (static_cast<int>(pics_ref.size()) < std::max(1, scorer.preferred_batch())) {
            if (limit >= 0 && frames >= limit) {
                more = false;
                break;
            }
            io::FramePtr r = ref.next(), d = dis.next();
            if (!r || !d) {
                if (r || d)
                    notes.push_back("\"" + (r ? dis : ref).path() + "\" ended before \"" + (r ? ref : dis).path() +
                                    "\"; scoring the " + std::to_string(frames) + " frames they share");
                more = false;
                break;
            }
            pics_ref.push_back(r->pic);
            pics_dis.push_back(d->pic);
            held_ref.push_back(std::move(r));
            held_dis.push_back(std::move(d));
            frames++;
        }
        // the frames before the batch, still held: the scorer copies none
        // (and the CPU engine reads them from their file)
        const PreviousFrames previous = recent.previous();
        scorer.push_batch(pics_ref.data(), pics_dis.data(), static_cast<int>(pics_ref.size()), done, &previous);
        recent.advance(held_ref, held_dis);
    }
    std::vector<FrameScores> rest = scorer.flush();
    done.insert(done.end(), rest.begin(), rest.end());
    if (done.empty()) throw Error("no frames to score: " + (ref.frame_count() == 0 ? ref.path() : dis.path()) + " is empty");
    if (range) {
        // the clip ended within the frames read, or nothing follows them
        range->clip_end = limit < 0 || frames < limit || !ref.next() || !dis.next();
        range->clip_end = range->clip_end && (range->end < 0 || start + frames <= range->end);
        if (start + frames <= range->first)
            throw Error("frame_range " + std::to_string(range->first) + ": the clip has only " + std::to_string(start + frames) +
                        " frames");
        for (FrameScores& f : done) {
            const long long index = start + f.index;
            if (index >= range->first && (range->end < 0 || index < range->end)) table.frames.push_back(std::move(f.values));
        }
    } else {
        for (FrameScores& f : done) table.frames.push_back(std::move(f.values));
    }
    for (const std::string& n : scorer.notes()) notes.push_back(n);
    return table;
}

// Python warnings (UserWarning) for what the command prints as "warning: ...".
void warn(const std::vector<std::string>& notes) {
    for (const std::string& n : notes)
        if (PyErr_WarnEx(PyExc_UserWarning, n.c_str(), 1) != 0) throw py::error_already_set();
}

std::optional<io::RawParams> raw_params(std::optional<int> width, std::optional<int> height, const py::object& pixel_format,
                                        std::optional<int> bitdepth) {
    if (!width && !height && pixel_format.is_none() && !bitdepth) return std::nullopt;
    if (!width || !height) throw Error("raw .yuv input needs width and height (and pixel_format, bitdepth)");
    return io::RawParams{*width, *height, pixel_format.is_none() ? PixelFormat::yuv420 : parse_pixel_format(pixel_format),
                         bitdepth.value_or(8)};
}

// frame_range: None, or (first, end) with end None for the clip's end.
std::optional<Range> range_of(const py::object& r) {
    if (r.is_none()) return std::nullopt;
    if (!py::isinstance<py::sequence>(r) || py::len(r) != 2)
        throw Error("frame_range must be (first, end), end None for the clip's end");
    const py::sequence seq = py::reinterpret_borrow<py::sequence>(r);
    Range range;
    range.first = seq[0].cast<long long>();
    range.end = seq[1].is_none() ? -1 : seq[1].cast<long long>();
    if (range.first < 0 || (range.end >= 0 && range.end <= range.first))
        throw Error("frame_range (" + std::to_string(range.first) + ", " + std::to_string(range.end) + ") holds no frame");
    return range;
}

py::dict score(const py::object& ref_path, const py::object& dis_path, std::optional<int> width, std::optional<int> height,
               const py::object& pixel_format, std::optional<int> bitdepth, const py::object& features,
               const py::object& model, const std::string& backend, int threads, const py::object& frame_range) {
    const std::string ref_name = path_of(ref_path, "ref"), dis_name = path_of(dis_path, "dis");
    const std::optional<io::RawParams> raw = raw_params(width, height, pixel_format, bitdepth);
    std::optional<Range> range = range_of(frame_range);
    const ScorerOptions options = scorer_options(model, backend, threads);
    const std::vector<std::string> feature_list = string_list(features, "features");
    io::ScoreTable table;
    std::vector<std::string> notes;
    {
        py::gil_scoped_release release;
        auto ref = io::VideoReader::open(ref_name, raw);
        auto dis = io::VideoReader::open(dis_name, raw);
        check_same_format(*ref, *dis);
        Scorer scorer(ref->format(), feature_list, options);
        table = score_readers(*ref, *dis, scorer, notes, range ? &*range : nullptr);
    }
    warn(notes);
    const long long first = range ? range->first : 0;
    py::list frames;
    for (size_t i = 0; i < table.frames.size(); i++)
        frames.append(frame_dict(table.metric_names, first + static_cast<long long>(i), table.frames[i]));
    py::dict out;
    out["frames"] = std::move(frames);
    out["pooled_metrics"] = pooled_dict(table);
    if (range) {
        py::dict shard;
        shard["first"] = first;
        shard["end"] = first + static_cast<long long>(table.frames.size());
        shard["clip_end"] = range->clip_end;
        out["shard"] = std::move(shard);
    }
    return out;
}

// The frames of a file (y4m, raw .yuv with its geometry); None where it is
// known only by decoding it all (encoded video, a pipe).
py::object frame_count(const py::object& path, std::optional<int> width, std::optional<int> height,
                       const py::object& pixel_format, std::optional<int> bitdepth) {
    const std::string name = path_of(path, "path");
    const std::optional<io::RawParams> raw = raw_params(width, height, pixel_format, bitdepth);
    long long n = -1;
    {
        py::gil_scoped_release release;
        n = io::VideoReader::open(name, raw)->frame_count();
    }
    return n < 0 ? py::object(py::none()) : py::object(py::int_(n));
}

// pool(frames): the pooled values of frames as push(), flush() and score() return them.
py::dict pool(const py::sequence& frames) {
    io::ScoreTable t;
    for (const py::handle f : frames) {
        const std::string at = "pool: frame " + std::to_string(t.frames.size());
        if (!py::isinstance<py::dict>(f) || !f.cast<py::dict>().contains("metrics") ||
            !py::isinstance<py::dict>(f["metrics"]))
            throw Error(at + ": expected a dict {\"frameNum\": i, \"metrics\": {name: value}}, as push() returns");
        const py::dict metrics = f["metrics"].cast<py::dict>();
        if (t.frames.empty())
            for (const auto& kv : metrics) t.metric_names.push_back(py::str(kv.first).cast<std::string>());
        std::vector<double> values;
        for (const std::string& name : t.metric_names) {
            if (!metrics.contains(name)) throw Error(at + " has no \"" + name + "\"");
            try {
                values.push_back(metrics[py::str(name)].cast<double>());
            } catch (const py::cast_error&) {
                throw Error(at + ": \"" + name + "\" is not a number");
            }
        }
        if (metrics.size() != t.metric_names.size())
            throw Error(at + " has other metrics than frame 0");
        t.frames.push_back(std::move(values));
    }
    return pooled_dict(t);
}

// ---- Scorer: pictures in Python buffers --------------------------------------

// One plane of a picture handed over from Python, as the library reads it:
// rows of native little-endian samples. Buffers whose samples are not
// adjacent within a row, or whose rows run backwards or overlap, are copied.
class PlaneView {
public:
    PlaneView(const py::handle& obj, const VideoFormat& f, int plane, const char* side) {
        const std::string where = std::string(side) + " plane " + std::to_string(plane);
        if (!PyObject_CheckBuffer(obj.ptr()))
            throw Error(where + ": expected a 2-D array (numpy), got " + std::string(py::str(py::type::of(obj))));
        buf_ = py::reinterpret_borrow<py::buffer>(obj).request();
        const int bps = f.bytes_per_sample();
        const std::string fmt = buf_.format;
        const bool ok = bps == 1 ? (fmt == "B" || fmt == "<B" || fmt == "=B")
                                 : (fmt == "H" || fmt == "<H" || fmt == "=H") && buf_.itemsize == 2;
        if (!ok)
            throw Error(where + ": samples must be " + (bps == 1 ? "uint8" : "native uint16") + " for " +
                        std::to_string(f.bitdepth) + "-bit video (buffer format \"" + fmt + "\")");
        const int w = f.stored_w(plane), h = f.stored_h(plane);
        if (buf_.ndim != 2 || buf_.shape[0] != h || buf_.shape[1] != w)
            throw Error(where + ": expected shape (" + std::to_string(h) + ", " + std::to_string(w) + ") for " + f.describe() +
                        ", got " + shape_text());
        const py::ssize_t row = static_cast<py::ssize_t>(w) * bps;
        if (buf_.strides[1] == bps && buf_.strides[0] >= row) {
            data_ = static_cast<const uint8_t*>(buf_.ptr);
            stride_ = buf_.strides[0];
        } else {
            copy_rows(w, h, bps);
        }
        if (f.bitdepth > 8 && f.bitdepth < 16) check_range(w, h, f.bitdepth, where);
    }
    const uint8_t* data() const { return data_; }
    ptrdiff_t stride() const { return stride_; }

private:
    std::string shape_text() const {
        std::string s = "(";
        for (py::ssize_t i = 0; i < buf_.ndim; i++) s += (i ? ", " : "") + std::to_string(buf_.shape[static_cast<size_t>(i)]);
        return s + (buf_.ndim == 1 ? ",)" : ")");
    }
    void copy_rows(int w, int h, int bps) {
        copy_.resize(static_cast<size_t>(w) * h * bps);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                std::memcpy(&copy_[(static_cast<size_t>(y) * w + x) * bps],
                            static_cast<const uint8_t*>(buf_.ptr) + y * buf_.strides[0] + x * buf_.strides[1], bps);
        data_ = copy_.data();
        stride_ = static_cast<ptrdiff_t>(w) * bps;
    }
    // Samples above the bit depth would index past the features' tables.
    void check_range(int w, int h, int bitdepth, const std::string& where) const {
        const uint16_t limit = static_cast<uint16_t>((1u << bitdepth) - 1);
        for (int y = 0; y < h; y++) {
            const uint8_t* r = data_ + y * stride_;
            for (int x = 0; x < w; x++) {
                uint16_t v;
                std::memcpy(&v, r + 2 * x, 2);
                if (v > limit)
                    throw Error(where + ": sample " + std::to_string(v) + " at row " + std::to_string(y) + ", column " +
                                std::to_string(x) + " exceeds " + std::to_string(limit) + " (" + std::to_string(bitdepth) +
                                "-bit video)");
            }
        }
    }

    py::buffer_info buf_;
    std::vector<uint8_t> copy_;
    const uint8_t* data_ = nullptr;
    ptrdiff_t stride_ = 0;
};

// The planes of one picture: a sequence of one array per plane (Y, U, V).
struct PictureView {
    std::vector<std::unique_ptr<PlaneView>> planes;
    Picture pic;
    PictureView(const py::handle& obj, const VideoFormat& f, const char* side) {
        if (!py::isinstance<py::sequence>(obj) || PyObject_CheckBuffer(obj.ptr()))
            throw Error(std::string(side) + ": expected a sequence of " + std::to_string(f.plane_count()) +
                        " planes (Y, U, V), one 2-D array each");
        const py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
        if (static_cast<int>(seq.size()) != f.plane_count())
            throw Error(std::string(side) + ": expected " + std::to_string(f.plane_count()) + " planes for " +
                        f.describe() + ", got " + std::to_string(seq.size()));
        for (int i = 0; i < f.plane_count(); i++) {
            planes.push_back(std::make_unique<PlaneView>(seq[static_cast<size_t>(i)], f, i, side));
            pic.plane[i] = planes.back()->data();
            pic.stride[i] = planes.back()->stride();
        }
    }
};

class PyScorer {
public:
    PyScorer(int width, int height, const py::object& pixel_format, int bitdepth, const py::object& features,
             const py::object& model, const std::string& backend, int threads)
        : format_{width, height, parse_pixel_format(pixel_format), bitdepth},
          scorer_(format_, string_list(features, "features"), scorer_options(model, backend, threads)) {}

    py::list push(const py::handle& ref, const py::handle& dis) {
        py::list refs, diss;
        refs.append(ref);
        diss.append(dis);
        return push_batch(refs, diss);
    }

    // Several pictures at once: the CPU engine scores them in parallel (threads).
    py::list push_batch(const py::sequence& refs, const py::sequence& diss) {
        if (flushed_) throw Error("push after flush(): the clip has ended; make a new Scorer for the next one");
        if (refs.size() != diss.size())
            throw Error("push_batch: " + std::to_string(refs.size()) + " reference and " + std::to_string(diss.size()) +
                        " distorted pictures");
        std::vector<std::unique_ptr<PictureView>> views;  // alive, with their buffers, until scored
        std::vector<Picture> pics_ref, pics_dis;
        for (size_t i = 0; i < refs.size(); i++) {
            const std::string at = refs.size() == 1 ? "" : "[" + std::to_string(i) + "]";
            views.push_back(std::make_unique<PictureView>(refs[i], format_, ("ref" + at).c_str()));
            pics_ref.push_back(views.back()->pic);
            views.push_back(std::make_unique<PictureView>(diss[i], format_, ("dis" + at).c_str()));
            pics_dis.push_back(views.back()->pic);
        }
        std::vector<FrameScores> done;
        {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(mutex_);
            scorer_.push_batch(pics_ref.data(), pics_dis.data(), static_cast<int>(pics_ref.size()), done);
        }
        return frame_list(scorer_.metric_names(), done);
    }

    py::list flush() {
        std::vector<FrameScores> done;
        {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(mutex_);
            done = scorer_.flush();
            flushed_ = true;
        }
        return frame_list(scorer_.metric_names(), done);
    }

    const std::vector<std::string>& metric_names() const { return scorer_.metric_names(); }
    std::string backend() const { return scorer_.backend_description(); }
    int preferred_batch() const { return scorer_.preferred_batch(); }

private:
    VideoFormat format_;
    Scorer scorer_;
    std::mutex mutex_;  // one push or flush at a time: the GIL is released during them
    bool flushed_ = false;
};

}  // namespace
}  // namespace speedqa::python

PYBIND11_MODULE(_speedqa, m) {
    using namespace speedqa::python;
    namespace sq = speedqa;
    m.doc() = "speedqa's native part; use the package speedqa.";
    m.attr("__version__") = sq::version();
    py::register_exception<sq::Error>(m, "Error", PyExc_ValueError).attr("__doc__") =
        "Bad input or options; the message is the library's, one line.";

    m.def("score", &score, py::arg("ref"), py::arg("dis"), py::arg("width") = py::none(), py::arg("height") = py::none(),
          py::arg("pixel_format") = py::none(), py::arg("bitdepth") = py::none(),
          py::arg("features") = py::tuple(), py::arg("model") = py::none(), py::arg("backend") = "auto",
          py::arg("threads") = 0, py::arg("frame_range") = py::none());
    m.def("frame_count", &frame_count, py::arg("path"), py::arg("width") = py::none(), py::arg("height") = py::none(),
          py::arg("pixel_format") = py::none(), py::arg("bitdepth") = py::none());
    m.def("pool", &pool, py::arg("frames"));
    m.def("feature_names", &sq::feature_names);
    m.def("_add_model_dir", [](const std::string& dir) { package_model_dirs().push_back(dir); });

    py::class_<PyScorer>(m, "Scorer")
        .def(py::init<int, int, const py::object&, int, const py::object&, const py::object&, const std::string&, int>(),
             py::arg("width"), py::arg("height"), py::arg("pixel_format") = "420", py::arg("bitdepth") = 8,
             py::arg("features") = py::tuple(), py::arg("model") = py::none(), py::arg("backend") = "auto",
             py::arg("threads") = 0)
        .def("push", &PyScorer::push, py::arg("ref"), py::arg("dis"))
        .def("push_batch", &PyScorer::push_batch, py::arg("refs"), py::arg("diss"))
        .def("flush", &PyScorer::flush)
        .def_property_readonly("metric_names", &PyScorer::metric_names)
        .def_property_readonly("backend", &PyScorer::backend)
        .def_property_readonly("preferred_batch", &PyScorer::preferred_batch);
}
