#include "app/cli/fail_limit.h"

#include "app/cli/cli.h"
#include "app/cli/command_util.h"

#include "engine/experiments/latency/latency_run.h"
#include "engine/util/clock.h"

#include <cstdio>

namespace rtscope::cli {

void addFailLimitOptions(CLI::App* sub, FailLimitOptions& o)
{
    o.aboveFlag =
        sub->add_option("--fail-above", o.above,
                        "exit 4 with a FAIL line when a measured CPU's latency percentile (--fail-percentile) "
                        "is above this, e.g. 100us (bare number: us); more than 0 and at most 10 s");
    o.percentileFlag =
        sub->add_option("--fail-percentile", o.percentile,
                        "with --fail-above, the percentile held to the limit: max (default) or a number more than 0 "
                        "and at most 100, e.g. 99.99");
}

std::optional<LatencyLimit> readFailLimit(const FailLimitOptions& o, std::vector<std::string>& problems)
{
    const bool aboveGiven = o.aboveFlag && o.aboveFlag->count() > 0;
    const bool percentileGiven = o.percentileFlag && o.percentileFlag->count() > 0;
    if (!aboveGiven) {
        if (percentileGiven)
            problems.push_back("fail-percentile needs --fail-above: it says which percentile the limit holds to");
        return std::nullopt;
    }
    LatencyLimit limit;
    const size_t before = problems.size();
    readDuration("fail-above", o.above, kNsPerUs, kBareMicroseconds, limit.limitNs, problems);
    if (percentileGiven) {
        if (auto p = parseLimitPercentile(o.percentile))
            limit.percentile = *p;
        else
            problems.push_back("fail-percentile: '" + o.percentile +
                               "' is not a percentile; use max or a number more than 0 and at most 100, e.g. 99.99");
    }
    if (problems.size() != before)
        return std::nullopt;
    for (auto& p : limit.validate())
        problems.push_back(std::move(p));
    return problems.size() == before ? std::optional(limit) : std::nullopt;
}

int finishWithLimit(const std::optional<LatencyLimit>& limit, const LatencySnapshot& snap, int code,
                    nlohmann::json& report)
{
    if (limit) {
        const LatencyLimitVerdict verdict = evaluateLatencyLimit(snap, *limit);
        std::printf("%s\n", verdict.line.c_str());
        std::fflush(stdout);
        report["limit"] = latencyLimitJson(verdict);
        if (code == ExitOk && !verdict.pass)
            code = ExitLimitBroken;
    }
    if (report.is_object())
        report["return_code"] = code;
    return code;
}

} // namespace rtscope::cli
