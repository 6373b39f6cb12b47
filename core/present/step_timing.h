#pragma once
// Times the steps of work done on the GUI thread (showing a loaded trace): with
// LAYERSCOPE_GUI_TIMING=1 in the environment each step's wall time goes to stderr, so that a
// stall the bench measures (app/bench/gui_open_bench.h) can be attributed without a profiler;
// with its thread's CPU time where the system gives it, which says whether the step waited for
// a core.
#include "core/model/platform.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace ls {

class StepTiming {
  public:
    explicit StepTiming(const char* what)
        : what_(what), start_(std::chrono::steady_clock::now()),
          cpuStart_(platform::threadCpuMs()) {
        sinceStart();
    }
    ~StepTiming() {
        static const bool on = std::getenv("LAYERSCOPE_GUI_TIMING") != nullptr;
        if (on)
            std::fprintf(
                stderr, "gui step %-28s %8.1f ms (ends at %.3f s), on its thread's CPU %.1f ms\n",
                what_,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
                    .count(),
                sinceStart(), platform::threadCpuMs() - cpuStart_);
    }
    // Seconds since the first step began: lines up steps with stalls a bench reports.
    static double sinceStart() {
        static const auto first = std::chrono::steady_clock::now();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - first).count();
    }
    StepTiming(const StepTiming&) = delete;
    StepTiming& operator=(const StepTiming&) = delete;

  private:
    const char* what_;
    std::chrono::steady_clock::time_point start_;
    double cpuStart_;
};

} // namespace ls
