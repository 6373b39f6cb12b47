#pragma once
// One importer per input format, in one probe table (importer.cpp). Each reads its file into a
// Trace through the shared builder (core/import/common/trace_assembler.h): columns, nesting,
// indexes and the load report, nothing derived; core/load then correlates and prices every trace
// the same way. Adding a format is a folder under core/import/ and one row in the table
// (docs/architecture.md).
#include "core/import/file_probe.h"
#include "core/import/load_error.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

class SqliteError;
class SqliteSource;

// What a probe may look at: the file's first bytes and, for SQLite files, their table names.
struct ImportProbe {
    const std::string& path;
    const FileHead& head;
    // SQLite files only: the schema read once, and the connection opened when an importer needs
    // one (each open parses the whole schema, which is most of the cost of loading a small export).
    const SqliteSource* sqlite = nullptr;
};

struct Importer {
    std::string_view format; // as `info` names it
    bool (*accepts)(const ImportProbe&);
    LoadResult (*read)(const ImportProbe&, const LoadOptions&);
};

// In probe order: the first importer that accepts a file reads it.
const std::vector<Importer>& importers();

// Probes the file and runs the importer that accepts it: a built Trace, not yet correlated.
LoadResult importTrace(const std::string& path, const LoadOptions& options);

// The one-line reason for an SQLite error (not a database, corrupt, unreadable).
LoadError loadErrorFrom(const SqliteError& e);

} // namespace ls
