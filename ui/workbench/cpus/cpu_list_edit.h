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
    QString text() const;
    QLineEdit* lineEdit() const { return m_edit; }

signals:
    void edited();

private:
    std::vector<int> m_allowed;
    QLineEdit* m_edit;
    QLabel* m_info;
};

} // namespace rtscope
