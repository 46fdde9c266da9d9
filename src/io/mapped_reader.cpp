// Regular files: the whole file is mapped and frames point straight into the
// mapping. A y4m file's frame headers are all checked when it is opened, so
// the frame count is known and a damaged file fails before any work is done.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "io/frame_pool.hpp"
#include "io/reader_common.hpp"
#include "io/y4m.hpp"

namespace speedqa::io {

namespace {

std::string_view view(const uint8_t* p, size_t n) { return {reinterpret_cast<const char*>(p), n}; }

// Bytes of the frame header at `p` ('\n' included), `avail` bytes being left
// in the file. Throws Error when it is not a complete FRAME header.
size_t frame_header_size(const std::string& name, const uint8_t* p, size_t avail, long long frame) {
    std::string_view v = view(p, std::min(avail, kMaxFrameHeader));
    size_t nl = v.find('\n');
    size_t k = std::min(v.size(), kFrameTag.size());
    if (v.substr(0, k) != kFrameTag.substr(0, k)) check_frame_header(v.substr(0, nl), name, frame);
    if (nl == std::string_view::npos) {
        if (avail < kMaxFrameHeader) throw truncated_frame_header_error(name, frame);
        throw long_frame_header_error(name, frame);
    }
    check_frame_header(v.substr(0, nl), name, frame);
    return nl + 1;
}

// The pages that reading the headers brings into the page cache. Read
// before the frames (advised random, so without read-ahead), a page not yet
// cached comes in alone, in a folio of one page. The frames' read-ahead
// then cannot take the 2 MiB around it in one folio (Mapping's huge-page
// hint), and a y4m file read from storage would have nearly every 2 MiB in
// small folios: a fault every 16 pages instead of every 512 (6,000 faults
// against 2,300 for 48 1080p frames of ref and dis). So the pages the
// headers brought in are dropped from the page cache again once read;
// pages that were cached before stay.
class HeaderPages {
public:
    explicit HeaderPages(const Mapping& file) : file_(file) {}

    // Before bytes [offset, offset + n) are read. (A page read already is
    // cached by then, so each page is kept once.)
    void will_read(size_t offset, size_t n) {
        const size_t page = Mapping::page_size(), end = std::min(offset + n, file_.size());
        for (size_t p = offset / page * page; p < end; p += page)
            if (!file_.cached(p)) brought_in_.push_back(p);
    }

    // After the reads, with nothing of this process mapping them.
    void drop() const {
        for (size_t p : brought_in_) file_.uncache(p, Mapping::page_size());
    }

private:
    const Mapping& file_;
    std::vector<size_t> brought_in_;  // the pages not cached before, by offset
};

// Frames from this size up have their headers' pages dropped (HeaderPages):
// at most two pages a frame are then read twice. Smaller frames put
// headers on most pages, and the file would be read twice.
constexpr size_t kDropHeadersFrom = size_t{1} << 20;

class MappedReader final : public VideoReader {
public:
    MappedReader(const std::string& path, const std::string& name, std::shared_ptr<const Mapping> file,
                 const std::optional<VideoFormat>& raw)
        : path_(path), name_(name), file_(std::move(file)) {
        const uint8_t* data = file_->data();
        const size_t size = file_->size();
        file_->advise_random();  // read only the pages the headers are on
        HeaderPages header_pages(*file_);
        header_pages.will_read(0, kMaxY4mHeader);
        std::string_view head = view(data, std::min(size, kMaxY4mHeader));
        y4m_ = has_y4m_signature(head);
        if (!y4m_) {
            if (!raw) throw not_y4m_error(name_);
            format_ = *raw;
            frame_bytes_ = format_.frame_bytes();
            if (size % frame_bytes_ != 0)
                throw Error(name_ + ": size " + std::to_string(size) + " bytes is not a whole number of " +
                            format_.describe() + " frames (" + std::to_string(frame_bytes_) + " bytes each)");
            if (size / frame_bytes_ > static_cast<size_t>(INT_MAX)) throw too_many_frames_error(name_);
            count_ = static_cast<long long>(size / frame_bytes_);
        } else {
            size_t nl = head.find('\n');
            if (nl == std::string_view::npos) {
                if (size < kMaxY4mHeader) throw Error(name_ + ": malformed y4m header: the file ends inside it");
                throw Error(name_ + ": malformed y4m header: longer than " + std::to_string(kMaxY4mHeader) + " bytes");
            }
            format_ = y4m_format(head.substr(0, nl), name_, raw);
            frame_bytes_ = format_.frame_bytes();
            pos_ = nl + 1;
            index_frames(frame_bytes_ >= kDropHeadersFrom ? &header_pages : nullptr);
        }
        file_->release(0, size);  // the header pages read
        header_pages.drop();
        file_->advise_sequential();
    }

    const VideoFormat& format() const override { return format_; }
    long long frame_count() const override { return count_; }
    const std::string& path() const override { return path_; }

    FramePtr next() override {
        if (next_ >= count_) return nullptr;
        const uint8_t* base = file_->data();
        if (y4m_) pos_ += frame_header_size(name_, base + pos_, file_->size() - pos_, next_);
        const uint8_t* p = base + pos_;
        pos_ += frame_bytes_;
        const int index = static_cast<int>(next_++);

        // Samples wider than a byte must sit at even addresses; a y4m header
        // of odd length puts them at odd ones, so those frames are copied.
        const size_t offset = static_cast<size_t>(p - base);
        if (format_.bytes_per_sample() > 1 && reinterpret_cast<uintptr_t>(p) % 2 != 0) {
            if (!pool_) pool_ = FramePool::create(frame_bytes_, name_);
            FramePool::SlotPtr slot = pool_->take();
            std::memcpy(FramePool::data(*slot), p, frame_bytes_);
            file_->release(offset, frame_bytes_);
            return pool_->publish(std::move(slot), format_, index);
        }
        auto frame = std::make_shared<Frame>();
        frame->pic = picture_in_frame(format_, p);
        // the same bytes in the file, for engines that read them with pread
        frame->pic.fd = file_->fd();
        for (int i = 0; i < format_.plane_count(); i++)
            frame->pic.file_offset[i] = static_cast<long long>(frame->pic.plane[i] - base);
        frame->index = index;
        // The frame's pages leave resident memory with the frame: a long
        // file takes no more memory than the frames its reader's user holds.
        frame->storage = std::shared_ptr<const void>(
            p, [file = file_, offset, bytes = frame_bytes_](const void*) { file->release(offset, bytes); });
        return frame;
    }

private:
    // Walks the frame headers from pos_ to count the frames and check them,
    // telling `pages` (if any) of each header's page before reading it.
    void index_frames(HeaderPages* pages) {
        const uint8_t* data = file_->data();
        const size_t size = file_->size();
        size_t pos = pos_;
        long long n = 0;
        while (pos < size) {
            if (n == INT_MAX) throw too_many_frames_error(name_);
            if (pages) pages->will_read(pos, 64);  // "FRAME\n", or a few parameters
            pos += frame_header_size(name_, data + pos, size - pos, n);
            if (size - pos < frame_bytes_) throw truncated_frame_error(name_, n, size - pos, frame_bytes_);
            pos += frame_bytes_;
            n++;
        }
        count_ = n;
    }

    std::string path_, name_;
    std::shared_ptr<const Mapping> file_;
    bool y4m_;
    VideoFormat format_;
    size_t frame_bytes_ = 0;
    long long count_ = 0;
    long long next_ = 0;
    size_t pos_ = 0;                    // where the next frame (its header, for y4m) starts
    std::shared_ptr<FramePool> pool_;  // for the frames that must be copied
};

}  // namespace

std::unique_ptr<VideoReader> make_mapped_reader(const std::string& path, const std::string& name,
                                                std::shared_ptr<const Mapping> file,
                                                const std::optional<VideoFormat>& raw) {
    return std::make_unique<MappedReader>(path, name, std::move(file), raw);
}

}  // namespace speedqa::io
