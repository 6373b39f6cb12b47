#pragma once
// Checks a path before any importer sees it, so the common mistakes get a precise one-line
// reason, and reads the first bytes the importers' probes look at.
#include "core/import/load_error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ls {

struct FileHead {
    uint64_t size = 0;
    std::string bytes;     // the file's first bytes (up to 4 KiB)
    bool isSqlite() const; // starts with the SQLite 3 magic string
};

// Fills head, or says why the path cannot be read as a trace at all (missing, a folder, empty,
// unreadable).
std::optional<LoadError> readFileHead(const std::string& path, FileHead& head);

// For a file with the SQLite magic: nullopt when its header is complete and the file is as long
// as the header says.
std::optional<LoadError> checkSqliteHeader(const FileHead& head);

} // namespace ls
