#pragma once
// The deadline page's table: the lesson's rows as the page wrote them (admission steps with the kernel's answer,
// or one row per task with its job figures), and which rows to mark (a refusal, a miss, the held reference).
#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>

#include <vector>

namespace rtscope {

class DeadlineTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Mark { None, Bad, Good, Reference };
    struct Row {
        QStringList cells;
        Mark mark = Mark::None;
    };

    explicit DeadlineTableModel(QObject* parent = nullptr);

    void setRows(const QStringList& headers, std::vector<Row> rows);
    const std::vector<Row>& rows() const { return m_rows; }
    /// The text of @p row's column titled @p header ("" when there is none).
    QString cell(int row, const QString& header) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QStringList m_headers;
    std::vector<Row> m_rows;
};

} // namespace rtscope
