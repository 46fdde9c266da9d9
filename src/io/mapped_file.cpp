#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "core/truncation_guard.hpp"

namespace speedqa::io {

std::shared_ptr<const Mapping> Mapping::map(int fd, size_t size) {
    void* p = nullptr;
    if (size) {
        p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) return nullptr;
    }
    try {
        auto m = std::shared_ptr<const Mapping>(new Mapping(static_cast<const uint8_t*>(p), size, fd));
        guard_mapping(m->data_, size);
        return m;
    } catch (...) {
        if (size) ::munmap(p, size);
        throw;
    }
}

Mapping::~Mapping() {
    if (size_) unguard_mapping(data_);
    if (size_) ::munmap(const_cast<uint8_t*>(data_), size_);
    ::close(fd_);
}

void Mapping::advise_random() const {
    if (size_) ::madvise(const_cast<uint8_t*>(data_), size_, MADV_RANDOM);
}

void Mapping::advise_sequential() const {
    if (!size_) return;
    ::madvise(const_cast<uint8_t*>(data_), size_, MADV_SEQUENTIAL);
#ifdef MADV_HUGEPAGE
    // Where transparent huge pages are on for madvised mappings, pages that
    // are not yet cached are read in 2 MiB folios, which the mapping then
    // takes whole (one fault a folio, not one per 16 pages); pages already
    // cached stay as they are. A hint: where the system makes no huge
    // pages of files, nothing changes.
    ::madvise(const_cast<uint8_t*>(data_), size_, MADV_HUGEPAGE);
#endif
}

size_t Mapping::page_size() {
    static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    return page;
}

void Mapping::release(size_t offset, size_t size) const {
    const uintptr_t page = page_size();
    if (offset >= size_ || size == 0) return;
    // whole pages: a page shared with a neighbouring frame is dropped too,
    // which costs that frame no more than reading the page again
    const uintptr_t begin = reinterpret_cast<uintptr_t>(data_ + offset) & ~(page - 1);
    const uintptr_t end = reinterpret_cast<uintptr_t>(data_ + offset + std::min(size, size_ - offset));
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

bool Mapping::cached(size_t offset) const {
    if (offset >= size_) return true;
    const size_t page = page_size();
    unsigned char in = 0;
    return ::mincore(const_cast<uint8_t*>(data_ + offset / page * page), page, &in) == 0 && (in & 1);
}

void Mapping::uncache(size_t offset, size_t size) const {
    const size_t page = page_size();
    if (offset >= size_ || size == 0) return;
    // (whole pages: the call leaves out a page the range covers in part)
    const size_t begin = offset / page * page;
    const size_t end = std::min((std::min(offset + size, size_) + page - 1) / page * page, size_);
    ::posix_fadvise(fd_, static_cast<off_t>(begin), static_cast<off_t>(end - begin), POSIX_FADV_DONTNEED);
}

}  // namespace speedqa::io
