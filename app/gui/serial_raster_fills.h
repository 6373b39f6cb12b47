#pragma once
// Qt's raster paint engine hands every fill of 96 rows or more (a widget's background, a scroll
// bar, a tall bar of a chart) to a thread pool in pieces and waits until they are done. While a
// load keeps every core busy, the GUI thread waits for those threads to get a core: measured on a
// 2-core machine during a 5M-kernel open, 0.5 s of the GUI thread's time went to waiting for the
// pieces and 0.45 s to being preempted by the pool threads it had just woken, with eight gaps of
// more than 20 ms; with the fills on the GUI thread, 0.12 s of waiting in all and no such gap.
// So the window's fills stay on the thread that paints.
//
// Qt 6.4 (Debian 12's) takes that pool from QThreadPool::globalInstance(), and every such caller
// in Qt GUI tests it for null before using it (45 calls in 6.4.2). serial_raster_fills.cpp defines
// that function in the executable that links it, returning null, and the link exports it, so that
// Qt GUI's calls find it first; Qt Core's own calls, bound inside Qt Core, still get the real
// pool, and Layerscope uses no other. Later Qt versions keep a pool of their own for Qt GUI,
// which recent ones leave unused when QT_NO_GUI_THREADPOOL is set.

namespace ls::app {

// Sets QT_NO_GUI_THREADPOOL (unless the user has set it): call before the QApplication.
void keepRasterFillsOnThePaintingThread();

} // namespace ls::app
