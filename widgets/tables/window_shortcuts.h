#pragma once
// A text field that lets the window's shortcuts through. QLineEdit claims, on X11, the emacs
// bindings Ctrl+E (end of line), Ctrl+K, Ctrl+U … before the window's actions see them, so
// Ctrl+E (Export) and Ctrl+Shift+E did nothing while the cursor was in the kernel filter bar,
// which is where a user is right after filtering (usability test, docs/usability.md). With
// this, a key that one of the window's enabled actions has as its shortcut goes to the action,
// unless it is one of the field's standard editing keys (copy, paste, undo, select all, word
// moves and deletes).
class QLineEdit;

namespace ls::gui {

void letWindowShortcutsThrough(QLineEdit* edit);

} // namespace ls::gui
