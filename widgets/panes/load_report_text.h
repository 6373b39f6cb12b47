#pragma once
#include "core/model/trace.h"

#include <QString>

namespace ls::gui {

// The load report and the trace's inventory as HTML for the report pane.
QString loadReportHtml(const Trace& t);

} // namespace ls::gui
