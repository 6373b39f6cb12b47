#pragma once
// Checks a path before SQLite sees it, so the common mistakes get a precise one-line reason.
#include "core/load.h"

#include <optional>
#include <string>

namespace ls {

// nullopt when the file looks like a complete SQLite database.
std::optional<LoadError> probeSqliteFile(const std::string& path);

} // namespace ls
