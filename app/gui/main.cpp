// layerscope: the desktop viewer. Opens the file given on the command line, else the bundled
// sample trace.
#include "core/platform.h"
#include "widgets/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>

int main(int argc, char** argv) {
    ls::platform::preferMappedLargeAllocations();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Layerscope"));
    QApplication::setApplicationName(QStringLiteral("Layerscope"));
    QApplication::setApplicationVersion(QStringLiteral(LAYERSCOPE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/layerscope.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("GPU trace viewer for deep-learning jobs"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Nsight Systems SQLite export to open (default: the sample trace)"));
    parser.process(app);

    ls::gui::MainWindow window;
    window.show();
    const QStringList files = parser.positionalArguments();
    window.openFile(files.isEmpty() ? ls::gui::MainWindow::samplePath() : files.first());
    return QApplication::exec();
}
