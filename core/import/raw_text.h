#pragma once
// The raw NVTX text of a range, on demand. PyTorch marker texts are unique per call and are not
// kept in memory (the parsed fields say the same); they are re-read from the export by row.
#include "core/model/trace.h"

#include <memory>
#include <string>

namespace ls {

class Database;
class Statement;

class RawTextReader {
public:
    explicit RawTextReader(const Trace& t);
    ~RawTextReader();
    // Falls back to the normalized name when the file cannot be read any more. Only PyTorch
    // markers are re-read unless always is set (their normalized name is their text otherwise).
    std::string text(RangeId r, bool always = false);

private:
    const Trace& t_;
    std::unique_ptr<Database> db_;
    std::unique_ptr<Statement> byRow_;
};

} // namespace ls
