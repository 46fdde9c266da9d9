// Encoded video (anything libavformat opens and libavcodec decodes), read
// frame by frame into pooled buffers. The frames are exactly those that
// `ffmpeg -i FILE -strict -1 -f yuv4mpegpipe -` writes (ffmpeg 5.1): the
// same video stream, the same pictures in presentation order, repeated and
// dropped as its constant-frame-rate output does (io/cfr_sync.hpp), so a
// score equals the score of that pipe.
#include <climits>
#include <cmath>
#include <cstring>
#include <deque>
#include <optional>

#include "io/cfr_sync.hpp"
#include "io/ffmpeg_clock.hpp"
#include "io/frame_pool.hpp"
#include "io/libav.hpp"
#include "io/reader_common.hpp"
#include "io/y4m.hpp"

namespace speedqa::io {

namespace {

std::string av_error_text(int code) {
    char buf[AV_ERROR_MAX_STRING_SIZE] = {};
    libav().av_strerror(code, buf, sizeof buf);
    return buf;
}

// The decoder pixel formats the y4m pipe carries and our readers read, as
// the y4m colour space ffmpeg writes for them (yuvj* are the same samples
// as yuv*, full range; the pipe labels them like yuv*).
struct PixMap {
    AVPixelFormat av;
    PixelFormat pix;
    int bitdepth;
};
constexpr PixMap kPixMaps[] = {
    {AV_PIX_FMT_YUV420P, PixelFormat::yuv420, 8},      {AV_PIX_FMT_YUVJ420P, PixelFormat::yuv420, 8},
    {AV_PIX_FMT_YUV422P, PixelFormat::yuv422, 8},      {AV_PIX_FMT_YUVJ422P, PixelFormat::yuv422, 8},
    {AV_PIX_FMT_YUV444P, PixelFormat::yuv444, 8},      {AV_PIX_FMT_YUVJ444P, PixelFormat::yuv444, 8},
    {AV_PIX_FMT_GRAY8, PixelFormat::yuv400, 8},        {AV_PIX_FMT_YUV420P10LE, PixelFormat::yuv420, 10},
    {AV_PIX_FMT_YUV422P10LE, PixelFormat::yuv422, 10}, {AV_PIX_FMT_YUV444P10LE, PixelFormat::yuv444, 10},
    {AV_PIX_FMT_GRAY10LE, PixelFormat::yuv400, 10},    {AV_PIX_FMT_YUV420P12LE, PixelFormat::yuv420, 12},
    {AV_PIX_FMT_YUV422P12LE, PixelFormat::yuv422, 12}, {AV_PIX_FMT_YUV444P12LE, PixelFormat::yuv444, 12},
    {AV_PIX_FMT_GRAY12LE, PixelFormat::yuv400, 12},    {AV_PIX_FMT_YUV420P16LE, PixelFormat::yuv420, 16},
    {AV_PIX_FMT_YUV422P16LE, PixelFormat::yuv422, 16}, {AV_PIX_FMT_YUV444P16LE, PixelFormat::yuv444, 16},
    {AV_PIX_FMT_GRAY16LE, PixelFormat::yuv400, 16},
};

const char* pix_name(int format) {
    const char* n = libav().av_get_pix_fmt_name(static_cast<AVPixelFormat>(format));
    return n ? n : "unknown";
}

// The duration of the packet a picture came from (stream time base).
int64_t picture_duration_field(const AVFrame& p) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    return p.duration;
#else
    return p.pkt_duration;
#endif
}

struct FormatCloser {
    void operator()(AVFormatContext* f) const { libav().avformat_close_input(&f); }
};
struct CodecCloser {
    void operator()(AVCodecContext* c) const { libav().avcodec_free_context(&c); }
};
struct FrameFreer {
    void operator()(AVFrame* f) const { libav().av_frame_free(&f); }
};
struct PacketFreer {
    void operator()(AVPacket* p) const { libav().av_packet_free(&p); }
};

// The stream ffmpeg maps by default: the largest picture, the default
// disposition worth 5000000 pixels, a cover picture only when nothing else.
int pick_video_stream(const AVFormatContext& fmt) {
    int best = -1;
    long long best_score = 0;
    for (unsigned i = 0; i < fmt.nb_streams; i++) {
        const AVStream& st = *fmt.streams[i];
        if (st.codecpar->codec_type != AVMEDIA_TYPE_VIDEO) continue;
        long long score = static_cast<long long>(st.codecpar->width) * st.codecpar->height +
                          5000000LL * ((st.disposition & AV_DISPOSITION_DEFAULT) != 0);
        if (st.disposition & AV_DISPOSITION_ATTACHED_PIC) score = 1;
        if (score > best_score) {
            best_score = score;
            best = static_cast<int>(i);
        }
    }
    return best;
}

// Degrees ffmpeg turns the picture by for display (its get_rotation()), and
// whether it changes the picture at all (it also flips a mirrored one).
struct Orientation {
    double degrees = 0;
    bool changes = false;
};
Orientation orientation(const int32_t* matrix) {
    Orientation o;
    if (!matrix) return o;
    double theta = -std::round(libav().av_display_rotation_get(matrix));
    theta -= 360 * std::floor(theta / 360 + 0.9 / 360);
    o.degrees = theta;
    o.changes = std::fabs(theta) > 1.0 || matrix[4] < 0;
    return o;
}

class DecodedReader final : public VideoReader {
public:
    DecodedReader(const std::string& path) : path_(path) {
        open_container();
        open_decoder();
        clock_.emplace(*fmt_, *fmt_->streams[stream_], *dec_);
        sync_ = CfrSync(fmt_->nb_streams == 1);
        // The format is that of the first picture (the pipe's header is too).
        check_orientation();
        if (!decode_until_output()) throw Error(path_ + ": the video stream holds no picture");
    }

    const VideoFormat& format() const override { return format_; }
    long long frame_count() const override { return -1; }  // known only once decoded
    const std::string& path() const override { return path_; }

    FramePtr next() override {
        if (pending_.empty() && !done_) {
            try {
                decode_until_output();
            } catch (...) {
                done_ = true;
                pending_.clear();
                throw;
            }
        }
        if (pending_.empty()) return nullptr;
        Run& run = pending_.front();
        if (next_index_ == INT_MAX) throw too_many_frames_error(path_);
        auto frame = std::make_shared<Frame>();  // (shares the decoded picture: repeats cost nothing)
        frame->pic = run.frame->pic;
        frame->index = static_cast<int>(next_index_++);
        frame->storage = run.frame;
        if (--run.count == 0) pending_.pop_front();
        return frame;
    }

private:
    // `count` output frames showing one decoded picture.
    struct Run {
        FramePtr frame;
        int64_t count;
    };

    void open_container() {
        AVFormatContext* f = nullptr;
        AVDictionary* opts = nullptr;
        libav().av_dict_set(&opts, "scan_all_pmts", "1", 0);  // (ffmpeg's: MPEG-TS programs found late)
        int r = libav().avformat_open_input(&f, path_.c_str(), nullptr, &opts);
        libav().av_dict_free(&opts);
        if (r < 0)
            throw Error(path_ + ": neither y4m nor a file libavformat can read (" + av_error_text(r) +
                        "); for raw .yuv input pass -w -h -p -b");
        fmt_.reset(f);
        r = libav().avformat_find_stream_info(f, nullptr);
        if (r < 0) throw Error(path_ + ": cannot read the streams' parameters: " + av_error_text(r));
        stream_ = pick_video_stream(*f);
        if (stream_ < 0) throw Error(path_ + ": has no video stream");
        // Only our stream is demuxed (ffmpeg discards the streams it does not map too).
        for (unsigned i = 0; i < f->nb_streams; i++)
            if (static_cast<int>(i) != stream_) f->streams[i]->discard = AVDISCARD_ALL;
    }

    void open_decoder() {
        const AVStream& st = *fmt_->streams[stream_];
        const AVCodec* codec = libav().avcodec_find_decoder(st.codecpar->codec_id);
        if (!codec)
            throw Error(path_ + ": this libavcodec has no decoder for its " + libav().avcodec_get_name(st.codecpar->codec_id) +
                        " video");
        dec_.reset(libav().avcodec_alloc_context3(codec));
        if (!dec_) throw std::bad_alloc();
        int r = libav().avcodec_parameters_to_context(dec_.get(), st.codecpar);
        if (r >= 0) {
            dec_->pkt_timebase = st.time_base;
            dec_->framerate = st.avg_frame_rate;  // (ffmpeg's: it advances decode timestamps)
            AVDictionary* opts = nullptr;
            libav().av_dict_set(&opts, "threads", "auto", 0);  // as ffmpeg: frame threads change no picture
            r = libav().avcodec_open2(dec_.get(), codec, &opts);
            libav().av_dict_free(&opts);
        }
        if (r < 0) throw Error(path_ + ": cannot open the " + codec->name + " decoder: " + av_error_text(r));
        packet_.reset(libav().av_packet_alloc());
        picture_.reset(libav().av_frame_alloc());
        if (!packet_ || !picture_) throw std::bad_alloc();
    }

    // Decodes until a picture yields output frames or the stream ends
    // (false: then the last picture's final repeats are queued, if any). The
    // calls are ffmpeg's: one packet in, pictures out one at a time until
    // none comes, and at the end one drain call per picture.
    bool decode_until_output() {
        while (pending_.empty()) {
            if (draining_) {
                if (!drain_one()) {
                    finish();
                    return false;
                }
            } else if (!read_packet()) {
                draining_ = true;
            } else {
                decode_packet();
            }
        }
        return true;
    }

    // The next packet of our stream, with ffmpeg's timestamp corrections;
    // false at the end of the file.
    bool read_packet() {
        for (;;) {
            int r = libav().av_read_frame(fmt_.get(), packet_.get());
            if (r == AVERROR_EOF) return false;
            if (r < 0)
                throw Error(path_ + ": reading failed after " + std::to_string(decoded_) + " pictures: " + av_error_text(r));
            if (packet_->stream_index == stream_) break;
            libav().av_packet_unref(packet_.get());
        }
        clock_->demuxed(*packet_);
        return true;
    }

    void decode_packet() {
        AVPacket& p = *packet_;
        clock_->start(&p);
        bool first = true;
        for (;;) {
            const int64_t dts = clock_->call(false);
            bool got = false;
            if (!first || p.size > 0) {  // (ffmpeg skips empty packets before the end)
                if (first) {
                    p.dts = dts;
                    int r = libav().avcodec_send_packet(dec_.get(), &p);
                    if (r < 0 && r != AVERROR_EOF) throw decode_error(r);
                }
                got = receive();
            }
            first = false;
            const int64_t pts = got ? clock_->picture_pts(*picture_, false) : AV_NOPTS_VALUE;
            clock_->finish_call(got, got ? picture_duration_field(*picture_) : 0);
            if (!got) break;
            take_picture(pts);
        }
        libav().av_packet_unref(&p);
    }

    // One drain call at the end of the stream: false when no picture is left.
    bool drain_one() {
        clock_->start(nullptr);
        clock_->call(true);
        if (!drain_sent_) {
            libav().avcodec_send_packet(dec_.get(), nullptr);
            drain_sent_ = true;
        }
        const bool got = receive();
        const int64_t pts = got ? clock_->picture_pts(*picture_, true) : AV_NOPTS_VALUE;
        clock_->finish_call(got, got ? picture_duration_field(*picture_) : 0);
        if (got) take_picture(pts);
        return got;
    }

    // A decoded picture into picture_, if the decoder has one ready.
    bool receive() {
        int r = libav().avcodec_receive_frame(dec_.get(), picture_.get());
        if (r == 0) return true;
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return false;
        throw decode_error(r);
    }

    // The grid of the output frames, set when the first picture arrives (as
    // ffmpeg sets up its filters): the frame rate libavformat guesses for
    // the stream, else 25.
    void set_up_grid() {
        const AVRational guessed = libav().av_guess_frame_rate(fmt_.get(), fmt_->streams[stream_], nullptr);
        const bool known = guessed.num > 0 && guessed.den > 0;
        period_ = known ? av_inv_q(guessed) : AVRational{1, 25};
        // a picture's length in periods where its packet says nothing
        default_duration_ = known ? 1 / (av_q2d(guessed) * av_q2d(period_)) : 0;
    }

    Error decode_error(int code) const {
        return Error(path_ + ": decoding failed at picture " + std::to_string(decoded_) + ": " + av_error_text(code));
    }

    // The decoded picture into a pooled buffer, queued as many times as the
    // frame-rate conversion shows it.
    void take_picture(int64_t pts) {
        const AVFrame& p = *picture_;
        if (decoded_ == 0) {
            format_ = first_format(p);
            set_up_grid();
            pool_ = FramePool::create(format_.frame_bytes(), path_);
        } else if (p.width != format_.width || p.height != format_.height || p.format != av_format_) {
            throw Error(path_ + ": picture " + std::to_string(decoded_) + " is " + std::to_string(p.width) + "x" +
                        std::to_string(p.height) + " " + pix_name(p.format) + ", but the video started as " +
                        std::to_string(format_.width) + "x" + std::to_string(format_.height) + " " +
                        pix_name(av_format_) + "; speedqa scores one size and pixel format throughout");
        }
        decoded_++;
        const CfrSync::Step step = sync_.push(sync_pts(pts), picture_duration(p));
        if (step.forgotten) return libav().av_frame_unref(picture_.get());
        FramePtr frame = copy_picture(p);
        libav().av_frame_unref(picture_.get());
        if (step.previous > 0 && last_) queue(last_, step.previous);
        queue(frame, step.total - (last_ ? step.previous : 0));
        last_ = std::move(frame);
    }

    void finish() {
        done_ = true;
        if (last_) queue(last_, sync_.flush());
    }

    void queue(const FramePtr& f, int64_t count) {
        if (count > 0) pending_.push_back({f, count});
    }

    VideoFormat first_format(const AVFrame& p) {
        av_format_ = p.format;
        VideoFormat f;
        f.width = p.width;
        f.height = p.height;
        bool known = false;
        for (const PixMap& m : kPixMaps)
            if (m.av == p.format) {
                f.pix = m.pix;
                f.bitdepth = m.bitdepth;
                known = true;
            }
        if (!known)
            throw Error(path_ + ": pixel format " + pix_name(p.format) +
                        " is not supported (planar YUV 4:2:0, 4:2:2, 4:4:4 or gray, 8, 10, 12 or 16 bits are); "
                        "convert it with ffmpeg, e.g. -pix_fmt yuv420p, and pipe it in as y4m");
#if LIBAVUTIL_VERSION_MAJOR >= 58
        const bool interlaced = p.flags & AV_FRAME_FLAG_INTERLACED;
#else
        const bool interlaced = p.interlaced_frame;
#endif
        if (interlaced)
            throw Error(path_ + ": interlaced video (its first picture is coded as two fields) is not supported; "
                                "only progressive video is");
        check_format(f, path_);
        return f;
    }

    // ffmpeg rotates and flips the pictures as the stream's display matrix
    // says; speedqa does not.
    void check_orientation() const {
        size_t size = 0;
        const uint8_t* sd = libav().av_stream_get_side_data(fmt_->streams[stream_], AV_PKT_DATA_DISPLAYMATRIX, &size);
        const Orientation o = orientation(sd && size >= 9 * sizeof(int32_t) ? reinterpret_cast<const int32_t*>(sd) : nullptr);
        if (o.changes)
            throw Error(path_ + ": the video is meant to be shown turned by " + std::to_string(std::lround(o.degrees)) +
                        " degrees or flipped (a display matrix), which ffmpeg applies and speedqa does not; "
                        "decode it with ffmpeg and pipe it in as y4m");
    }

    FramePtr copy_picture(const AVFrame& p) {
        FramePool::SlotPtr slot = pool_->take();
        uint8_t* dst = FramePool::data(*slot);
        for (int plane = 0; plane < format_.plane_count(); plane++) {
            const size_t row = static_cast<size_t>(format_.stored_w(plane)) * format_.bytes_per_sample();
            const uint8_t* src = p.data[plane];
            for (int y = 0; y < format_.stored_h(plane); y++, dst += row, src += p.linesize[plane])
                std::memcpy(dst, src, row);
        }
        return pool_->publish(std::move(slot), format_, 0);  // (the index is that of each output frame)
    }

    // The picture's time in periods of the grid, ffmpeg's way: with up to 16
    // extra bits of precision, nudged off exact midpoints.
    double sync_pts(int64_t pts) const {
        if (pts == AV_NOPTS_VALUE) return static_cast<double>(AV_NOPTS_VALUE);
        AVRational fine = period_;
        const int extra_bits = av_clip(29 - libav().av_log2(static_cast<unsigned>(fine.den)), 0, 16);
        fine.den <<= extra_bits;
        double t = static_cast<double>(libav().av_rescale_q(pts, fmt_->streams[stream_]->time_base, fine));
        t /= 1 << extra_bits;
        t += (t > 0 ? 1 : -1) * 1.0 / (1 << 17);
        return t;
    }

    // The picture's length in periods: its packet's duration, rounded as
    // ffmpeg rounds it, or one period.
    double picture_duration(const AVFrame& p) const {
        const int64_t d = picture_duration_field(p);
        const long periods =
            std::lrintf(static_cast<float>(d * av_q2d(fmt_->streams[stream_]->time_base) / av_q2d(period_)));
        return periods > 0 ? static_cast<double>(periods) : default_duration_;
    }

    std::string path_;
    std::unique_ptr<AVFormatContext, FormatCloser> fmt_;
    std::unique_ptr<AVCodecContext, CodecCloser> dec_;
    std::unique_ptr<AVPacket, PacketFreer> packet_;
    std::unique_ptr<AVFrame, FrameFreer> picture_;
    int stream_ = -1;
    VideoFormat format_;
    int av_format_ = AV_PIX_FMT_NONE;

    std::optional<FfmpegClock> clock_;
    bool draining_ = false, drain_sent_ = false;

    AVRational period_{1, 25};       // of the output grid
    double default_duration_ = 1;    // in periods
    CfrSync sync_{false};

    std::shared_ptr<FramePool> pool_;
    std::deque<Run> pending_;  // output frames decoded but not yet handed out
    FramePtr last_;            // the last picture shown (what a gap repeats)
    long long decoded_ = 0;    // pictures decoded
    long long next_index_ = 0;
    bool done_ = false;
};

}  // namespace

bool decodes_encoded_video() { return true; }

std::unique_ptr<VideoReader> make_decoded_reader(const std::string& path) {
    libav(path);  // loads the libraries, or says why it cannot
    return std::make_unique<DecodedReader>(path);
}

}  // namespace speedqa::io
