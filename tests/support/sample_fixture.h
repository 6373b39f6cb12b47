#pragma once
// A test suite over the bundled sample trace: loaded once per suite, with its `kernels` CSV.
#include "core/load/load.h"
#include "tests/support/cli_table.h"

#include <gtest/gtest.h>
#include <memory>

namespace ls::test {

class SampleTraceSuite : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        auto r = ls::loadTrace(sampleTrace().string());
        ASSERT_TRUE(r.ok());
        trace_ = r.trace;
        kernels_ = std::make_unique<CliTable>(cliTable({"kernels", sampleTrace().string()}));
    }
    static void TearDownTestSuite() {
        trace_.reset();
        kernels_.reset();
    }
    static inline std::shared_ptr<const ls::Trace> trace_;
    static inline std::unique_ptr<CliTable> kernels_;
};

} // namespace ls::test
