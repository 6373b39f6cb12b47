#pragma once
// The start page: what the central area shows while no trace is open (no file given and no
// sample, --no-sample, or a first open that failed). Open File…, the recent files, the sample,
// how to get a .sqlite out of nsys, and which inputs Layerscope reads. It stands in for the
// window's tabs while shown and hides the docks, which have nothing to show yet.
#include <QWidget>

class QCheckBox;
class QListWidget;
class QMainWindow;
class QPushButton;

namespace ls::gui {

class StartPage : public QWidget {
    Q_OBJECT
  public:
    // stateVersion: the version the window saves its dock layout under.
    StartPage(QMainWindow* window, int stateVersion);

    // Replaces the window's central widget (kept, hidden) with this page; hides the docks.
    void showIn(const QStringList& recentFiles, const QString& samplePath);
    // Puts the central widget and the docks back.
    void leave();
    bool shown() const { return content_ != nullptr; }
    // The window's dock layout to remember: the one from before the page hid the docks.
    QByteArray windowState() const;

    // Whether to open the sample when started without a file (the page's check box).
    static bool openSampleAtStart();

    QListWidget* recentList() const { return recent_; }
    QPushButton* openButton() const { return open_; }
    QPushButton* sampleButton() const { return sample_; }

  signals:
    void openRequested();
    void fileRequested(const QString& path);

  private:
    QMainWindow* window_;
    int stateVersion_;
    QWidget* content_ = nullptr; // the central widget while the page stands in for it
    QByteArray dockState_;
    QPushButton* open_;
    QPushButton* sample_;
    QListWidget* recent_;
    QCheckBox* openSample_;
    QString samplePath_;
};

// First start (no saved geometry): `window` takes `share` of its screen's available area,
// centred on it.
void fitToScreen(QWidget* window, double share = 0.9);

} // namespace ls::gui
