#pragma once
// Findings over the ranks of a session: exposed communication (the rank_sum report) and the rank
// the others wait for (the collective_sum report's last rank of each matched collective).
#include "core/findings/finding.h"
#include "core/model/session.h"

#include <vector>

namespace ls {

// iterations: per rank index, how many iterations its trace's windows hold.
std::vector<Finding> rankFindings(const Session& session, const std::vector<int>& iterations);

} // namespace ls
