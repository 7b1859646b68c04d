#pragma once
// The per-CPU page's choice of CPUs: "all" or a list like the CLI's --cpus ("0,2-3"), with the machine's online,
// isolated and nohz_full CPUs spelled out underneath so the user sees what "all" means here.
#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QLineEdit;

namespace rtscope {

struct SystemProbe;

class CpuListEdit : public QWidget {
    Q_OBJECT
public:
    /// @p allowed: the CPUs "all" stands for (online and allowed for this process).
    CpuListEdit(const std::vector<int>& allowed, const SystemProbe& probe, QWidget* parent = nullptr);

    /// The CPUs typed, or none when the text is not a CPU list (problem() says why).
    std::optional<std::vector<int>> cpus() const;
    /// The sentence for text that is not a CPU list, in the CLI's words; empty when it parses.
    QString problem() const;
    /// Shows @p cpus ("all" when they are every allowed CPU) without emitting edited().
    void setCpus(const std::vector<int>& cpus);
    /// "all" becomes @p allowed, and the line underneath @p probe's isolated and nohz_full CPUs: the measured
    /// machine's (a remote target's, docs/remote.md). A list naming a CPU outside @p allowed falls back to "all".
    /// Emits nothing; returns whether the CPUs the text stands for changed (the page then takes them).
    bool setAllowed(const std::vector<int>& allowed, const SystemProbe& probe);
    const std::vector<int>& allowed() const { return m_allowed; }
    QString text() const;
    QLineEdit* lineEdit() const { return m_edit; }

signals:
    void edited();

private:
    void showInfo(const SystemProbe& probe);

    std::vector<int> m_allowed;
    QLineEdit* m_edit;
    QLabel* m_info;
};

} // namespace rtscope
