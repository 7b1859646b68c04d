#pragma once
// A framed fact in large type ("Timer slack in force / 50.0 µs / the default"): what must be readable from the
// back of a lecture hall, on every lab page that shows figures in tiles.
#include <QFrame>

class QLabel;

namespace rtscope {

class FactTile : public QFrame {
    Q_OBJECT
public:
    explicit FactTile(const QString& title, QWidget* parent = nullptr);

    void setValue(const QString& value, const QString& detail = {});
    /// Highlights the value (a colour name, or empty for the text colour).
    void setAccent(const QString& color);
    QString value() const;
    QString detail() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void restyle();

    QLabel* m_title;
    QLabel* m_value;
    QLabel* m_detail;
    QString m_accent;
};

} // namespace rtscope
