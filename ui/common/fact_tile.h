#pragma once
// A framed fact in large type ("Timer slack in force / 50.0 µs / the default"): what must be readable from the
// back of a lecture hall, on every lab page that shows figures in tiles. A tile never draws outside itself: the title
// and the value elide on a narrow screen (their tooltip has the whole text) and the detail wraps, the tile growing
// to its height.
#include <QFrame>

#include <initializer_list>

class QHBoxLayout;
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
    /// "value · detail": what the tile says, as one line (the pages' text of a tile, for tests and status lines).
    QString text() const;
    QString title() const;
    /// A page whose tiles mean something else per mode (the deadline lab's lessons) renames them.
    void setTitle(const QString& title);

    /// What the tile shows now (elided when narrow), for tests.
    QString shownTitle() const;
    QString shownValue() const;

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void restyle();
    void fitText();

    QLabel* m_title;
    QLabel* m_value;
    QLabel* m_detail;
    QString m_accent;
    QString m_titleText;
    QString m_valueText;
};

/// A tile's place in a row of tiles: its object name (for tests) and its share of the row's width.
struct TilePlace {
    FactTile* tile;
    const char* name;
    int stretch;
};
/// A row of @p tiles, left to right, 8 px apart; each tile is given its name and its stretch.
QHBoxLayout* tileRow(std::initializer_list<TilePlace> tiles);

} // namespace rtscope
