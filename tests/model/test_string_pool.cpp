// StringPool: one id per distinct string, the empty string is id 0, lookups never add.
#include "core/model/string_pool.h"

#include <gtest/gtest.h>
#include <string>

namespace {

using ls::StringId;
using ls::StringPool;

TEST(StringPool, EmptyStringIsIdZero) {
    StringPool p;
    EXPECT_EQ(p.size(), 1u);
    EXPECT_EQ(p.view(StringId(0)), "");
    EXPECT_EQ(p.intern(""), StringId(0));
    EXPECT_EQ(p.find(""), StringId(0));
}

TEST(StringPool, InterningTheSameTextGivesTheSameId) {
    StringPool p;
    const StringId a = p.intern("aten::addmm");
    const StringId b = p.intern("aten::mm");
    EXPECT_NE(a, b);
    EXPECT_NE(a, StringId(0));
    EXPECT_EQ(p.intern(std::string("aten::") + "addmm"), a);
    EXPECT_EQ(p.size(), 3u);
    EXPECT_EQ(p.view(a), "aten::addmm");
    EXPECT_EQ(p.view(b), "aten::mm");
}

TEST(StringPool, FindDoesNotAdd) {
    StringPool p;
    p.intern("kernel");
    EXPECT_FALSE(p.find("missing").valid());
    EXPECT_EQ(p.size(), 2u);
    EXPECT_EQ(p.find("kernel"), p.intern("kernel"));
}

TEST(StringPool, InvalidOrUnknownIdsViewAsEmpty) {
    StringPool p;
    p.intern("x");
    EXPECT_EQ(p.view(StringId()), "");
    EXPECT_EQ(p.view(StringId(2)), "");
    EXPECT_EQ(p.view(StringId(1000000)), "");
}

TEST(StringPool, KeepsEmbeddedNulsCommasQuotesAndNonAscii) {
    StringPool p;
    const std::string withNul("a\0b", 3);
    const StringId n = p.intern(withNul);
    const StringId a = p.intern("a");
    EXPECT_NE(n, a);
    EXPECT_EQ(p.view(n), withNul);
    const StringId k = p.intern("void f<\"q\", 1>(int, float) \xCE\xBB");
    EXPECT_EQ(p.view(k), "void f<\"q\", 1>(int, float) \xCE\xBB");
}

TEST(StringPool, ManyStringsKeepTheirIds) {
    StringPool p;
    std::vector<StringId> ids;
    for (int i = 0; i < 20000; ++i) ids.push_back(p.intern("name_" + std::to_string(i)));
    EXPECT_EQ(p.size(), 20001u);
    for (int i = 0; i < 20000; i += 997) {
        EXPECT_EQ(p.view(ids[static_cast<size_t>(i)]), "name_" + std::to_string(i));
        EXPECT_EQ(p.find("name_" + std::to_string(i)), ids[static_cast<size_t>(i)]);
    }
}

} // namespace
