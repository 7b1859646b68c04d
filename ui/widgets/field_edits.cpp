#include "ui/widgets/field_edits.h"

#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/period_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>

namespace rtscope {

void watchField(QCheckBox* field, QObject* context, const EditHandler& onEdit)
{
    QObject::connect(field, &QCheckBox::toggled, context, onEdit);
}

void watchField(QComboBox* field, QObject* context, const EditHandler& onEdit)
{
    QObject::connect(field, &QComboBox::currentIndexChanged, context, onEdit);
}

void watchField(QLineEdit* field, QObject* context, const EditHandler& onEdit)
{
    QObject::connect(field, &QLineEdit::editingFinished, context, onEdit);
}

void watchField(QSpinBox* field, QObject* context, const EditHandler& onEdit)
{
    QObject::connect(field, &QSpinBox::valueChanged, context, onEdit);
}

void watchField(QToolButton* field, QObject* context, const EditHandler& onEdit)
{
    QObject::connect(field, &QToolButton::toggled, context, onEdit);
}

void watchField(DurationSpinBox* field, QObject* context, const EditHandler& onEdit)
{
    QObject::connect(field, &DurationSpinBox::valueChanged, context, onEdit);
}

void watchField(PeriodEditor* field, QObject* context, const EditHandler& onEdit)
{
    QObject::connect(field, &PeriodEditor::periodChanged, context, onEdit);
}

} // namespace rtscope
