#pragma once
// Finds the Nsight Systems CLI (`nsys`) that converts a .nsys-rep/.qdrep into an SQLite export:
// the path set in preferences (LoadOptions::nsysPath), else LAYERSCOPE_NSYS, else `nsys` on
// PATH, else the usual install folders. An explicit setting that names no program is an error,
// never silently replaced by another nsys.
#include <string>
#include <vector>

namespace ls {

// Where to look, taken apart from the process environment so tests can pass their own.
struct NsysSearch {
    std::string preference;               // LoadOptions::nsysPath
    std::string environment;              // LAYERSCOPE_NSYS
    std::string pathVariable;             // PATH
    std::vector<std::string> installDirs; // folders holding an nsys, checked after PATH, in order
};

// The search this process would make: its environment, and the install folders present.
NsysSearch nsysSearchFromEnvironment(const std::string& preference);

// Folders an Nsight Systems install puts nsys in that exist here, newest version first:
// /opt/nvidia/nsight-systems*/[VERSION/]bin, /usr/local/cuda/bin and, on Windows,
// %ProgramFiles%/NVIDIA Corporation/Nsight Systems */target-windows-x64.
std::vector<std::string> nsysInstallDirs();

struct NsysLocation {
    std::string path;  // the nsys to run; empty when none was found
    std::string from;  // "preferences", "LAYERSCOPE_NSYS", "PATH" or "install folder"
    std::string error; // an explicit setting that names no program (one clause); empty otherwise
    bool found() const { return !path.empty(); }
};

NsysLocation locateNsys(const NsysSearch& search);

} // namespace ls
