#pragma once
// Layerscope's folder of SQLite exports made from .nsys-rep/.qdrep files:
// $XDG_CACHE_HOME/layerscope/exports (else ~/.cache/…, else the temporary folder's
// layerscope/exports). An export is named after the report's absolute path, size and modification
// time, so reopening an unchanged report reuses it and a changed one gets a new export. Exports are
// written under a partial name and renamed when complete; a cached export is checked before it is
// used.
#include "core/model/file_identity.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ls {

// Where exports may be, in order: <user cache>/layerscope/exports, <temp>/layerscope/exports.
std::vector<std::string> exportCacheDirs();

// The exports folder to write to, created when missing: the first of exportCacheDirs() that can
// be created. nullopt (error says why) when none can.
std::optional<std::string> createExportCacheDir(std::string& error);

// <stem>-<hash of the path>-<hash of size, time and cache format>.sqlite
std::string exportFileName(const FileIdentity& report);

// A fresh name in the exports folder for nsys to write before the rename.
std::string partialExportPath(const std::string& finalPath);

// Whether path holds a complete SQLite database (magic, header, length as the header says).
bool isCompleteExport(const std::string& path);

// Removes the exports of earlier versions of the same report (same path, other size or time)
// and partial files a crashed run left more than a day ago. Errors are ignored.
void pruneExportCache(const std::string& dir, const std::string& keepPath);

} // namespace ls
