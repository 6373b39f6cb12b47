#pragma once
// "Tell me what is wrong": the findings of a session, costliest first. Per rank, the GPU idle
// inside iterations by cause (idle_findings.h) and the GPU work's own faults
// (compute_findings.h); over the ranks of a job, the communication one rank makes the others
// wait in (rank_findings.h). docs/findings.md describes each rule.
#include "core/findings/finding.h"
#include "core/model/session.h"

namespace ls {

FindingList findings(const Session& session);

} // namespace ls
