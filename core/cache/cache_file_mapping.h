#pragma once
// A file mapped read-only for the model cache's reader, which can also hand out private,
// writable mappings of its page-aligned ranges for columns to adopt (core/model/column.h): the
// page cache's pages are used where they lie, and a write to one copies only that page, never
// reaching the file. Where mappings are not available the file is read into memory instead and
// no range is mapped.
#include "core/model/platform.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ls {

class CacheFileMapping {
  public:
    CacheFileMapping() = default;
    CacheFileMapping(const CacheFileMapping&) = delete;
    CacheFileMapping& operator=(const CacheFileMapping&) = delete;
    ~CacheFileMapping();

    // Opens and maps path; an error message, empty on success.
    std::string open(const std::string& path);
    const unsigned char* data() const { return data_; }
    uint64_t size() const { return size_; }

    // A private, writable mapping of [offset, offset + bytes) rounded up to whole pages; offset
    // must be page aligned. Null when the range cannot be mapped (the caller copies instead).
    void* mapPrivate(uint64_t offset, size_t bytes) const;

  private:
    std::string readWhole(const std::string& path); // into copy_
    std::unique_ptr<platform::MappableFile> file_;  // null where the file was read whole
    const unsigned char* data_ = nullptr;
    uint64_t size_ = 0;
    std::vector<unsigned char> copy_; // the file's bytes where it could not be mapped
};

} // namespace ls
