#include "ui/workbench/cpus/cpu_list_edit.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "engine/util/units.h"

#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>

namespace rtscope {

namespace {
QString listOrNone(const std::vector<int>& cpus)
{
    return cpus.empty() ? QObject::tr("none") : QString::fromStdString(formatCpuList(cpus));
}
} // namespace

CpuListEdit::CpuListEdit(const std::vector<int>& allowed, const SystemProbe& probe, QWidget* parent)
    : QWidget(parent)
    , m_allowed(allowed)
    , m_edit(new QLineEdit(this))
    , m_info(new QLabel(this))
{
    m_edit->setObjectName("cpuList");
    m_edit->setText(QStringLiteral("all"));
    m_edit->setPlaceholderText(tr("all, or e.g. 0,2-3"));
    m_edit->setToolTip(tr("The CPUs to measure, one measuring thread each: 'all', or numbers and ranges like "
                          "0,2-3 (as rtscope latency --cpus)"));
    m_info->setObjectName("cpuInfo");
    m_info->setWordWrap(true);
    m_info->setEnabled(false);
    showInfo(probe);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_edit);
    layout->addWidget(m_info);
    connect(m_edit, &QLineEdit::editingFinished, this, &CpuListEdit::edited);
}

std::optional<std::vector<int>> CpuListEdit::cpus() const
{
    return parseCpuList(m_edit->text().trimmed().toStdString(), m_allowed);
}

QString CpuListEdit::problem() const
{
    if (cpus())
        return {};
    return QString("cpus: '%1' is not a CPU list; use all, or numbers and ranges like 0,2-3").arg(m_edit->text());
}

void CpuListEdit::setCpus(const std::vector<int>& cpus)
{
    const QSignalBlocker block(m_edit);
    m_edit->setText(cpus == m_allowed ? QStringLiteral("all") : QString::fromStdString(formatCpuList(cpus)));
}

bool CpuListEdit::setAllowed(const std::vector<int>& allowed, const SystemProbe& probe)
{
    const std::optional<std::vector<int>> before = cpus();
    m_allowed = allowed;
    showInfo(probe);
    if (const std::optional<std::vector<int>> now = cpus()) {
        const auto offered = [&](int cpu) {
            return std::find(allowed.begin(), allowed.end(), cpu) != allowed.end();
        };
        if (!std::all_of(now->begin(), now->end(), offered)) {
            const QSignalBlocker block(m_edit);
            m_edit->setText(QStringLiteral("all"));
        }
    }
    return cpus() != before;
}

void CpuListEdit::showInfo(const SystemProbe& probe)
{
    m_info->setText(tr("all = %1 · isolated: %2 · nohz_full: %3")
                        .arg(listOrNone(m_allowed), listOrNone(probe.isolatedCpus), listOrNone(probe.nohzFullCpus)));
}

QString CpuListEdit::text() const
{
    return m_edit->text();
}

} // namespace rtscope

#include "moc_cpu_list_edit.cpp"
