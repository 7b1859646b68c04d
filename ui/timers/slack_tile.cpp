#include "ui/timers/slack_tile.h"

#include "ui/common/colors.h"
#include "ui/common/fact_tile.h"
#include "ui/common/text_format.h"

#include <QObject>

namespace rtscope {

int64_t requestedSlackNs(Policy policy, int64_t requestedNs, int64_t defaultNs)
{
    return isRealtime(policy) ? 0 : (requestedNs ? requestedNs : defaultNs);
}

void showRequestedSlack(FactTile* tile, Policy policy, int64_t requestedNs, int64_t defaultNs,
                        const QString& defaultDetail)
{
    if (isRealtime(policy))
        tile->setValue(durationQt(0), QObject::tr("real-time threads get no slack"));
    else if (requestedNs == 0)
        tile->setValue(durationQt(defaultNs), defaultDetail);
    else
        tile->setValue(durationQt(requestedNs), QObject::tr("set with prctl(PR_SET_TIMERSLACK)"));
}

void accentSlack(FactTile* tile, int64_t slackNs, bool dark)
{
    tile->setAccent(colors::css(slackNs >= 10'000 ? (dark ? colors::kOrange300 : colors::kOrange900)
                                                  : (dark ? colors::kGreen300 : colors::kGreen800)));
}

} // namespace rtscope
