#pragma once
// Which file, in which state: the one description of a file's identity that every cache keys on
// (the model cache's files, the exports made from .nsys-rep reports). A changed file (size, time,
// or replaced by another inode) gets a new identity and so a new cache entry.
#include <cstdint>
#include <optional>
#include <string>

namespace ls {

struct FileIdentity {
    std::string absolutePath; // symbolic links resolved where they can be
    uint64_t size = 0;
    int64_t mtimeNs = 0; // modification time, ns since the epoch
    uint64_t device = 0, inode = 0;
};

// The identity of the file at path now; nullopt when it cannot be examined.
std::optional<FileIdentity> fileIdentity(const std::string& path);

} // namespace ls
