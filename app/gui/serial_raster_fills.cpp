#include "app/gui/serial_raster_fills.h"

#include <QThreadPool>
#include <QtGlobal>

namespace ls::app {

void keepRasterFillsOnThePaintingThread() {
    if (qEnvironmentVariableIsEmpty("QT_NO_GUI_THREADPOOL")) qputenv("QT_NO_GUI_THREADPOOL", "1");
}

} // namespace ls::app

// Found before Qt Core's by Qt GUI's calls (see the header): no pool, so the fills run where they
// are painted.
QThreadPool* QThreadPool::globalInstance() { return nullptr; }
