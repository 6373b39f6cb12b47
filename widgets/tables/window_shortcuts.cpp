#include "widgets/tables/window_shortcuts.h"

#include <QAction>
#include <QKeyEvent>
#include <QKeySequence>
#include <QLineEdit>

namespace ls::gui {
namespace {

bool isEditingKey(const QKeyEvent& e) {
    // Ctrl+A, Ctrl+C, Ctrl+V, Ctrl+X, Ctrl+Z, Ctrl+Y and Ctrl+arrows stay the field's; Ctrl+E
    // (emacs end of line on X11) does not: Home/End do that.
    switch (e.key()) {
    case Qt::Key_A:
    case Qt::Key_C:
    case Qt::Key_V:
    case Qt::Key_X:
    case Qt::Key_Z:
    case Qt::Key_Y:
    case Qt::Key_Left:
    case Qt::Key_Right:
    case Qt::Key_Backspace:
    case Qt::Key_Delete:
    case Qt::Key_Home:
    case Qt::Key_End:
        return true;
    default:
        return false;
    }
}

class PassThrough : public QObject {
  public:
    using QObject::QObject;

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() != QEvent::ShortcutOverride) return false;
        auto* edit = qobject_cast<QLineEdit*>(watched);
        const auto* key = static_cast<QKeyEvent*>(event);
        if (!edit || !(key->modifiers() & Qt::ControlModifier) || isEditingKey(*key)) return false;
        const QKeySequence pressed(key->keyCombination());
        for (const QAction* action : edit->window()->findChildren<QAction*>()) {
            if (!action->isEnabled()) continue;
            for (const QKeySequence& s : action->shortcuts())
                if (s.matches(pressed) == QKeySequence::ExactMatch) {
                    event->ignore(); // not overridden: the shortcut map gives it to the action
                    return true;
                }
        }
        return false;
    }
};

} // namespace

void letWindowShortcutsThrough(QLineEdit* edit) {
    if (edit) edit->installEventFilter(new PassThrough(edit));
}

} // namespace ls::gui
