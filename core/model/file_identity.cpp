#include "core/model/file_identity.h"

#include "core/model/platform.h"

#include <filesystem>
#include <system_error>

namespace ls {

std::optional<FileIdentity> fileIdentity(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path absolute = fs::weakly_canonical(fs::absolute(path, ec), ec);
    if (ec) absolute = fs::absolute(path, ec);
    if (ec) return std::nullopt;
    platform::FileStamp stamp;
    if (!platform::fileStamp(absolute.string(), stamp)) return std::nullopt;
    return FileIdentity{absolute.string(), stamp.size, stamp.mtimeNs, stamp.device, stamp.inode};
}

} // namespace ls
