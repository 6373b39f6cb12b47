#pragma once
// layerscope-bench --session FILE...|DIR: a session of several traces loaded in one process
// against the sum of the files' single-thread floors divided by the cores the load used.
#include <string>
#include <vector>

int runSessionBench(const std::vector<std::string>& inputs, int runs, bool json);
