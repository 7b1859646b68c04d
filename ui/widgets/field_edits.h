#pragma once
// One way for a panel to hear its fields: watchFields(context, onEdit, fields…) calls onEdit whenever the user
// changes any of them — a spin box's value, a combo box's choice, a check box's or tool button's tick, a line edit's
// finished text, a period editor's period — for as long as context lives. A map or vector of fields counts as each of
// its fields. BlockedFields is the other side: while it lives, the fields it names are silent, so that a panel showing
// a config does not hear it as the user's edit.
#include <QSignalBlocker>

#include <functional>
#include <map>
#include <vector>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QObject;
class QSpinBox;
class QToolButton;

namespace rtscope {

class DurationSpinBox;
class PeriodEditor;

using EditHandler = std::function<void()>;

void watchField(QCheckBox* field, QObject* context, const EditHandler& onEdit);
void watchField(QComboBox* field, QObject* context, const EditHandler& onEdit);
void watchField(QLineEdit* field, QObject* context, const EditHandler& onEdit);
void watchField(QSpinBox* field, QObject* context, const EditHandler& onEdit);
void watchField(QToolButton* field, QObject* context, const EditHandler& onEdit);
void watchField(DurationSpinBox* field, QObject* context, const EditHandler& onEdit);
void watchField(PeriodEditor* field, QObject* context, const EditHandler& onEdit);

template <class Key, class Field>
void watchField(const std::map<Key, Field*>& fields, QObject* context, const EditHandler& onEdit)
{
    for (const auto& entry : fields)
        watchField(entry.second, context, onEdit);
}

template <class Field> void watchField(const std::vector<Field*>& fields, QObject* context, const EditHandler& onEdit)
{
    for (Field* field : fields)
        watchField(field, context, onEdit);
}

template <class... Fields> void watchFields(QObject* context, const EditHandler& onEdit, const Fields&... fields)
{
    (watchField(fields, context, onEdit), ...);
}

/// Blocks the signals of every field given (a map or vector of fields counts as each of its fields) for as long as it
/// lives; each field's signals are then as they were before.
class BlockedFields {
public:
    template <class... Fields> explicit BlockedFields(const Fields&... fields) { (block(fields), ...); }
    BlockedFields(const BlockedFields&) = delete;
    BlockedFields& operator=(const BlockedFields&) = delete;

private:
    void block(QObject* field) { m_blockers.emplace_back(field); }
    template <class Key, class Field> void block(const std::map<Key, Field*>& fields)
    {
        for (const auto& entry : fields)
            block(entry.second);
    }
    template <class Field> void block(const std::vector<Field*>& fields)
    {
        for (Field* field : fields)
            block(field);
    }

    std::vector<QSignalBlocker> m_blockers;
};

} // namespace rtscope
