// One identity for every cache: the model cache's key line and the .nsys-rep export names are
// made from it, so a file that changes in size, time or inode is a new file to both.
#include "core/cache/trace_cache.h"
#include "core/import/nsys_rep/export_cache.h"
#include "core/model/file_identity.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace {

fs::path writeFile(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

} // namespace

TEST(FileIdentity, DescribesTheFileAndFollowsItsChanges) {
    const fs::path dir = fs::temp_directory_path() / "ls_file_identity";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path file = writeFile(dir / "a.nsys-rep", "12345");
    const auto id = ls::fileIdentity(file.string());
    ASSERT_TRUE(id);
    EXPECT_EQ(id->absolutePath, fs::canonical(file).string());
    EXPECT_EQ(id->size, 5u);
    EXPECT_NE(id->inode, 0u);
    // Reached through another spelling of the path: the same identity.
    const auto again = ls::fileIdentity((dir / "." / "a.nsys-rep").string());
    ASSERT_TRUE(again);
    EXPECT_EQ(again->absolutePath, id->absolutePath);
    EXPECT_EQ(ls::exportFileName(*again), ls::exportFileName(*id));
    EXPECT_EQ(ls::traceFileIdentity((dir / "." / "a.nsys-rep").string()),
              ls::traceFileIdentity(file.string()));

    // Rewritten with another size: both caches see a new file.
    const std::string oldExport = ls::exportFileName(*id);
    const std::string oldLine = ls::traceFileIdentity(file.string());
    writeFile(file, "123456");
    const auto changed = ls::fileIdentity(file.string());
    ASSERT_TRUE(changed);
    EXPECT_EQ(changed->size, 6u);
    EXPECT_NE(ls::exportFileName(*changed), oldExport);
    EXPECT_NE(ls::traceFileIdentity(file.string()), oldLine);

    // Same size, another modification time.
    const std::string sizeOnly = ls::exportFileName(*changed);
    fs::last_write_time(file, fs::last_write_time(file) - std::chrono::hours(1));
    const auto touched = ls::fileIdentity(file.string());
    ASSERT_TRUE(touched);
    EXPECT_NE(touched->mtimeNs, changed->mtimeNs);
    EXPECT_NE(ls::exportFileName(*touched), sizeOnly);
    fs::remove_all(dir);
}

TEST(FileIdentity, NoneForAMissingFile) {
    EXPECT_FALSE(ls::fileIdentity("/nonexistent/layerscope/trace.sqlite"));
    EXPECT_EQ(ls::traceFileIdentity("/nonexistent/layerscope/trace.sqlite"), "");
}
