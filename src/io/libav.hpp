// libavformat, libavcodec and libavutil, opened with dlopen when the first
// encoded input is (not linked): a run on y4m or raw video never loads them
// and their ~130 shared libraries, which cost ~45 ms at every start.
// The sonames are the major versions of the headers built against, so the
// structures the readers touch have the layout those headers give.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
}

#include <string>

namespace speedqa::io {

// X(library, function): every libav function the readers call.
#define SPEEDQA_LIBAV_FUNCTIONS(X)                                                                              \
    X(avutil, av_dict_free) X(avutil, av_dict_set) X(avutil, av_display_rotation_get) X(avutil, av_frame_alloc) \
    X(avutil, av_frame_free) X(avutil, av_frame_unref) X(avutil, av_get_pix_fmt_name) X(avutil, av_log2)       \
    X(avutil, av_log_set_level) X(avutil, av_rescale_q) X(avutil, av_rescale_q_rnd) X(avutil, av_strerror)     \
    X(avcodec, av_packet_alloc) X(avcodec, av_packet_free) X(avcodec, av_packet_unref)                          \
    X(avcodec, avcodec_alloc_context3) X(avcodec, avcodec_find_decoder) X(avcodec, avcodec_free_context)        \
    X(avcodec, avcodec_get_name) X(avcodec, avcodec_open2) X(avcodec, avcodec_parameters_to_context)            \
    X(avcodec, avcodec_receive_frame) X(avcodec, avcodec_send_packet) X(avformat, av_guess_frame_rate)          \
    X(avformat, av_read_frame) X(avformat, av_stream_get_parser) X(avformat, av_stream_get_side_data)           \
    X(avformat, avformat_close_input) X(avformat, avformat_find_stream_info) X(avformat, avformat_open_input)

struct Libav {
#define SPEEDQA_LIBAV_POINTER(lib, name) decltype(&::name) name = nullptr;
    SPEEDQA_LIBAV_FUNCTIONS(SPEEDQA_LIBAV_POINTER)
#undef SPEEDQA_LIBAV_POINTER
};

// The functions, loaded at the first call (thread-safe; never unloaded).
// Throws NoDecoderError naming the library and `path` when one cannot be
// loaded.
const Libav& libav(const std::string& path);
// Once loaded (after a reader was made).
const Libav& libav();

}  // namespace speedqa::io
