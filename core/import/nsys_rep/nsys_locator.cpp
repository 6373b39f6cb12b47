#include "core/import/nsys_rep/nsys_locator.h"

#include "core/model/natural_order.h"
#include "core/model/platform.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace ls {
namespace {

namespace fs = std::filesystem;

std::string envVar(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

std::string nsysFileName() { return "nsys" + std::string(platform::executableSuffix()); }

// Subfolders of dir whose names start with prefix, newest version first.
std::vector<fs::path> subdirs(const fs::path& dir, std::string_view prefix) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with(prefix) && it->is_directory(ec)) out.push_back(it->path());
    }
    std::sort(out.begin(), out.end(), [](const fs::path& x, const fs::path& y) {
        return naturalLess(y.filename().string(), x.filename().string());
    });
    return out;
}

void addIfDir(std::vector<std::string>& dirs, const fs::path& dir) {
    std::error_code ec;
    if (fs::is_directory(dir, ec)) dirs.push_back(dir.string());
}

} // namespace

std::vector<std::string> nsysInstallDirs() {
    std::vector<std::string> dirs;
    // /opt/nvidia/nsight-systems/2024.4.1/bin (the installers),
    // /opt/nvidia/nsight-systems-cli/…/bin (CLI-only packages), or a bin right under the product
    // folder.
    for (const fs::path& product : subdirs("/opt/nvidia", "nsight-systems")) {
        addIfDir(dirs, product / "bin");
        for (const fs::path& version : subdirs(product, "")) addIfDir(dirs, version / "bin");
    }
    addIfDir(dirs, "/usr/local/cuda/bin");
    if (const std::string programFiles = envVar("ProgramFiles"); !programFiles.empty())
        for (const fs::path& product :
             subdirs(fs::path(programFiles) / "NVIDIA Corporation", "Nsight Systems"))
            addIfDir(dirs, product / "target-windows-x64");
    return dirs;
}

NsysSearch nsysSearchFromEnvironment(const std::string& preference) {
    return {preference, envVar("LAYERSCOPE_NSYS"), envVar("PATH"), nsysInstallDirs()};
}

NsysLocation locateNsys(const NsysSearch& search) {
    // A setting may name the program or the folder holding it.
    const auto explicitSetting = [](const std::string& value, const char* from) {
        NsysLocation loc;
        std::error_code ec;
        const fs::path p(value);
        const fs::path program = fs::is_directory(p, ec) ? p / nsysFileName() : p;
        if (platform::isExecutableFile(program.string()))
            loc.path = fs::absolute(program, ec).string();
        else
            loc.error = std::string(from) + " names " + value +
                        (fs::exists(p, ec) ? ", which is not an executable nsys"
                                           : ", which does not exist");
        loc.from = from;
        return loc;
    };
    if (!search.preference.empty()) return explicitSetting(search.preference, "preferences");
    if (!search.environment.empty()) return explicitSetting(search.environment, "LAYERSCOPE_NSYS");

    const std::string name = nsysFileName();
    size_t begin = 0;
    while (begin <= search.pathVariable.size()) {
        size_t end = search.pathVariable.find(platform::pathListSeparator(), begin);
        if (end == std::string::npos) end = search.pathVariable.size();
        const std::string dir = search.pathVariable.substr(begin, end - begin);
        begin = end + 1;
        if (dir.empty())
            continue; // an empty entry means the working folder: never run a program from there
        const fs::path program = fs::path(dir) / name;
        std::error_code ec;
        if (platform::isExecutableFile(program.string()))
            return {fs::absolute(program, ec).string(), "PATH", {}};
    }
    for (const std::string& dir : search.installDirs) {
        const fs::path program = fs::path(dir) / name;
        if (platform::isExecutableFile(program.string()))
            return {program.string(), "install folder", {}};
    }
    return {};
}

} // namespace ls
