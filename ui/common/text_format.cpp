#include "ui/common/text_format.h"

#include <cmath>

namespace rtscope {

QStringList toQt(const std::vector<std::string>& sentences)
{
    QStringList out;
    for (const std::string& s : sentences)
        out << screenText(s);
    return out;
}

QString formatLatency(double ns)
{
    const double a = std::fabs(ns);
    if (a < 1e3)
        return QString::number(ns, 'f', 0) + " ns";
    if (a < 1e6)
        return QString::number(ns / 1e3, 'f', a < 1e4 ? 2 : a < 1e5 ? 1 : 0) + " µs";
    if (a < 1e9)
        return QString::number(ns / 1e6, 'f', a < 1e7 ? 2 : a < 1e8 ? 1 : 0) + " ms";
    return QString::number(ns / 1e9, 'f', 2) + " s";
}

QString formatMicros(double ns)
{
    const double us = ns / 1e3;
    const double a = std::fabs(us);
    return QString::number(us, 'f', a < 10 ? 2 : a < 100 ? 1 : 0);
}

} // namespace rtscope
