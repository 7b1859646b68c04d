#include "engine/remote/snapshot_json.h"

#include "engine/experiments/registry.h"
#include "engine/remote/snapshot_fields.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <sched.h>
#include <type_traits>
#include <utility>

namespace rtscope {

namespace {

using namespace snapshot_fields;

template <class T> struct SnapshotIsVector : std::false_type {};
template <class T> struct SnapshotIsVector<std::vector<T>> : std::true_type {};
template <class T> struct SnapshotIsArray : std::false_type {};
template <class T, size_t N> struct SnapshotIsArray<std::array<T, N>> : std::true_type {};
template <class T> struct SnapshotIsOptional : std::false_type {};
template <class T> struct SnapshotIsOptional<std::optional<T>> : std::true_type {};
template <class T> struct SnapshotIsShared : std::false_type {};
template <class T> struct SnapshotIsShared<std::shared_ptr<T>> : std::true_type {};

// clang-format off
template <class T> concept SnapshotConfig = requires { ExperimentTraits<T>::kName; };
// clang-format on

nlohmann::json histogramJson(const Histogram& h)
{
    // Sparse: [index, count] of the filled buckets only (a few dozen of some thousand).
    nlohmann::json buckets = nlohmann::json::array();
    h.forEachBucket([&](int64_t low, int64_t, uint64_t n) { buckets.push_back({Histogram::bucketIndex(low), n}); });
    nlohmann::json exact = nlohmann::json::array();
    for (size_t i = 0; i < h.exactUsBins().size(); ++i)
        if (h.exactUsBins()[i])
            exact.push_back({i, h.exactUsBins()[i]});
    const long double sum = h.sum();
    return {{"count", h.count()},
            {"overflow", h.overflowCount()},
            {"min", h.min()},
            {"max", h.max()},
            {"sum", double(sum)},
            {"buckets", buckets},
            {"exact_us_bins", h.exactUsBinCount()},
            {"exact_us", exact},
            {"exact_us_overflow", h.exactUsOverflow()}};
}

template <class T> nlohmann::json put(const T& x);

struct SnapshotWriter {
    nlohmann::json& out;
    template <class T> void operator()(const char* key, const T& x, size_t = 0) { out[key] = put(x); }
    template <class T> void log(const char* key, const std::shared_ptr<const AppendLog<T>>& log, size_t count)
    {
        nlohmann::json items = nlohmann::json::array();
        if (log)
            for (const T& item : log->prefix(count))
                items.push_back(put(item));
        out[key] = std::move(items);
    }
};

template <class T> nlohmann::json put(const T& x)
{
    if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T>)
        return x;
    else if constexpr (std::is_floating_point_v<T>)
        return std::isfinite(double(x)) ? nlohmann::json(double(x)) : nlohmann::json(nullptr);
    else if constexpr (std::is_enum_v<T>)
        return int(x);
    else if constexpr (std::is_same_v<T, std::string>)
        return x;
    else if constexpr (std::is_same_v<T, Histogram>)
        return histogramJson(x);
    else if constexpr (SnapshotConfig<T>)
        return toJson(x);
    else if constexpr (SnapshotIsOptional<T>::value || SnapshotIsShared<T>::value)
        return x ? put(*x) : nlohmann::json(nullptr);
    else if constexpr (SnapshotIsVector<T>::value || SnapshotIsArray<T>::value) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& item : x)
            a.push_back(put(item));
        return a;
    } else {
        nlohmann::json o = nlohmann::json::object();
        SnapshotWriter w{o};
        fields(w, const_cast<T&>(x)); // the writer only reads
        return o;
    }
}

// Reads into a value that keeps its default on a problem; every problem is a sentence starting with the path.
struct SnapshotReader {
    const nlohmann::json& in;
    std::string prefix; ///< "counters[2]." for the fields of a nested object
    std::vector<std::string>& errors;

    template <class T> void operator()(const char* key, T& x, size_t maxItems = kMaxSnapshotListItems)
    {
        const auto it = in.find(key);
        if (it != in.end())
            get(*it, prefix + key, x, maxItems);
    }

    template <class T> void log(const char* key, std::shared_ptr<const AppendLog<T>>& log, size_t& count)
    {
        std::vector<T> items;
        const auto it = in.find(key);
        if (it == in.end() || !get(*it, prefix + key, items, kMaxSnapshotListItems))
            return;
        auto made = std::make_shared<AppendLog<T>>(items.size());
        for (const T& item : items)
            made->append(item);
        count = items.size();
        log = std::move(made);
    }

    void fail(const std::string& path, const std::string& phrase) { errors.push_back(path + " " + phrase); }

    template <class T> bool getInteger(const nlohmann::json& j, const std::string& path, T& x)
    {
        const char* what = std::is_unsigned_v<T> ? "must be an unsigned integer" : "must be an integer";
        if (!j.is_number_integer()) {
            fail(path, what);
            return false;
        }
        if (j.is_number_unsigned()) {
            const auto u = j.get<uint64_t>();
            if (std::cmp_greater(u, std::numeric_limits<T>::max())) {
                fail(path, std::string(what) + " in " + std::to_string(std::numeric_limits<T>::min()) + " … " +
                               std::to_string(std::numeric_limits<T>::max()));
                return false;
            }
            x = T(u);
            return true;
        }
        const auto i = j.get<int64_t>();
        if (std::cmp_less(i, std::numeric_limits<T>::min()) || std::cmp_greater(i, std::numeric_limits<T>::max())) {
            fail(path, std::string(what) + " in " + std::to_string(std::numeric_limits<T>::min()) + " … " +
                           std::to_string(std::numeric_limits<T>::max()));
            return false;
        }
        x = T(i);
        return true;
    }

    bool getHistogram(const nlohmann::json& j, const std::string& path, Histogram& h)
    {
        if (!j.is_object()) {
            fail(path, "must be an object");
            return false;
        }
        uint64_t count = 0, overflow = 0, exactOverflow = 0;
        int64_t min = 0, max = 0;
        double sum = 0;
        size_t exactBins = 0;
        std::vector<std::array<uint64_t, 2>> buckets, exact;
        SnapshotReader r{j, path + ".", errors};
        const size_t before = errors.size();
        r("count", count);
        r("overflow", overflow);
        r("min", min);
        r("max", max);
        r("sum", sum);
        r("buckets", buckets);
        r("exact_us_bins", exactBins);
        r("exact_us", exact);
        r("exact_us_overflow", exactOverflow);
        if (exactBins > kMaxSnapshotListItems)
            fail(path + ".exact_us_bins", "must be at most " + std::to_string(kMaxSnapshotListItems));
        if (errors.size() != before)
            return false;
        Histogram empty;
        std::vector<uint64_t> dense(empty.bucketCount(), 0);
        std::vector<uint64_t> denseExact(exactBins, 0);
        for (const auto& [i, n] : buckets) {
            if (i >= dense.size()) {
                fail(path + ".buckets",
                     "names bucket " + std::to_string(i) + "; there are " + std::to_string(dense.size()));
                return false;
            }
            dense[i] = n;
        }
        for (const auto& [i, n] : exact) {
            if (i >= denseExact.size()) {
                fail(path + ".exact_us",
                     "names bin " + std::to_string(i) + "; exact_us_bins is " + std::to_string(exactBins));
                return false;
            }
            denseExact[i] = n;
        }
        if (!h.restore(std::move(dense), std::move(denseExact), exactOverflow, count, overflow, min, max, sum)) {
            fail(path, "buckets and overflow do not add up to its count");
            return false;
        }
        return true;
    }

    template <class T> bool get(const nlohmann::json& j, const std::string& path, T& x, size_t maxItems)
    {
        if constexpr (std::is_same_v<T, bool>) {
            if (!j.is_boolean()) {
                fail(path, "must be true or false");
                return false;
            }
            x = j.get<bool>();
            return true;
        } else if constexpr (std::is_integral_v<T>) {
            return getInteger(j, path, x);
        } else if constexpr (std::is_floating_point_v<T>) {
            if (j.is_null()) { // a NaN or an infinity was written as null
                x = std::numeric_limits<T>::quiet_NaN();
                return true;
            }
            if (!j.is_number()) {
                fail(path, "must be a number");
                return false;
            }
            x = T(j.get<double>());
            return true;
        } else if constexpr (std::is_enum_v<T>) {
            const int last = int(kSnapshotEnumLast<T>);
            if (!j.is_number_integer() || j.get<int64_t>() < 0 || j.get<int64_t>() > last) {
                fail(path, "must be an integer in 0 … " + std::to_string(last));
                return false;
            }
            x = T(j.get<int64_t>());
            return true;
        } else if constexpr (std::is_same_v<T, std::string>) {
            if (!j.is_string()) {
                fail(path, "must be a string");
                return false;
            }
            x = j.get<std::string>();
            return true;
        } else if constexpr (std::is_same_v<T, Histogram>) {
            return getHistogram(j, path, x);
        } else if constexpr (SnapshotConfig<T>) {
            std::vector<std::string> problems;
            T c = ExperimentTraits<T>::fromJson(j, problems);
            for (const std::string& p : problems)
                errors.push_back(path + ": " + p);
            if (!problems.empty())
                return false;
            x = std::move(c);
            return true;
        } else if constexpr (SnapshotIsOptional<T>::value) {
            if (j.is_null()) {
                x.reset();
                return true;
            }
            typename T::value_type v{};
            if (!get(j, path, v, maxItems))
                return false;
            x = std::move(v);
            return true;
        } else if constexpr (SnapshotIsShared<T>::value) {
            if (j.is_null()) {
                x.reset();
                return true;
            }
            auto v = std::make_shared<std::remove_const_t<typename T::element_type>>();
            if (!get(j, path, *v, maxItems))
                return false;
            x = std::move(v);
            return true;
        } else if constexpr (SnapshotIsVector<T>::value || SnapshotIsArray<T>::value) {
            size_t bound = maxItems;
            if constexpr (SnapshotIsArray<T>::value)
                bound = std::tuple_size_v<T>;
            if (!j.is_array()) {
                fail(path, "must be a list");
                return false;
            }
            if (j.size() > bound) {
                fail(path, "has " + std::to_string(j.size()) + " elements, more than the " + std::to_string(bound) +
                               " allowed");
                return false;
            }
            T out{};
            if constexpr (SnapshotIsVector<T>::value)
                out.resize(j.size());
            for (size_t i = 0; i < j.size(); ++i)
                if (!get(j[i], path + "[" + std::to_string(i) + "]", out[i], kMaxSnapshotListItems))
                    return false;
            x = std::move(out);
            return true;
        } else {
            if (!j.is_object()) {
                fail(path, "must be an object");
                return false;
            }
            const size_t before = errors.size();
            T out{};
            SnapshotReader r{j, path + ".", errors};
            fields(r, out);
            if (errors.size() != before)
                return false;
            x = std::move(out);
            return true;
        }
    }
};

template <class S> std::shared_ptr<S> readSnapshot(const nlohmann::json& j, std::vector<std::string>& errors)
{
    if (!j.is_object()) {
        errors.push_back("the snapshot must be a JSON object");
        return nullptr;
    }
    auto s = std::make_shared<S>();
    const size_t before = errors.size();
    SnapshotReader r{j, {}, errors};
    fields(r, *s);
    return errors.size() == before ? s : nullptr;
}

// What the pages index by: parts that must fit together, checked once here so a view never reads past a list.
void checkFit(bool ok, const std::string& sentence, std::vector<std::string>& errors)
{
    if (!ok)
        errors.push_back(sentence);
}

// readSnapshot(), then @p check(snapshot, errors) on what was read: the snapshot when neither found a problem.
template <class S, class Check>
std::shared_ptr<S> readChecked(const nlohmann::json& j, std::vector<std::string>& errors, Check check)
{
    const size_t before = errors.size();
    auto s = readSnapshot<S>(j, errors);
    if (s)
        check(static_cast<const S&>(*s), errors);
    return s && errors.size() == before ? s : nullptr;
}

} // namespace

nlohmann::json toJson(const StarvationSnapshot& s)
{
    return put(s);
}
nlohmann::json toJson(const DriftSnapshot& s)
{
    return put(s);
}
nlohmann::json toJson(const SleepFloorSnapshot& s)
{
    return put(s);
}
nlohmann::json toJson(const InversionSnapshot& s)
{
    return put(s);
}
nlohmann::json toJson(const ContentionSnapshot& s)
{
    return put(s);
}
nlohmann::json toJson(const DeadlineSnapshot& s)
{
    return put(s);
}
nlohmann::json toJson(const SweepSnapshot& s)
{
    return put(s);
}
nlohmann::json toJson(const NoiseSnapshot& s)
{
    return put(s);
}

std::shared_ptr<StarvationSnapshot> starvationSnapshotFromJson(const nlohmann::json& j,
                                                               std::vector<std::string>& errors)
{
    return readChecked<StarvationSnapshot>(
        j, errors, [](const StarvationSnapshot& s, std::vector<std::string>& errors) {
            checkFit(s.starvedCounters >= 0 && size_t(s.starvedCounters) <= s.counters.size(),
                     "starved_counters " + std::to_string(s.starvedCounters) + " must be 0 … the " +
                         std::to_string(s.counters.size()) + " counters",
                     errors);
            checkFit(s.bursts.size() <= StarvationAggregator::kMaxBurstRecords,
                     "bursts has more than " + std::to_string(StarvationAggregator::kMaxBurstRecords) + " records",
                     errors);
        });
}

std::shared_ptr<DriftSnapshot> driftSnapshotFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    return readChecked<DriftSnapshot>(j, errors, [](const DriftSnapshot& s, std::vector<std::string>& errors) {
        checkFit(s.methods.size() <= s.config.methods.size(),
                 "methods has " + std::to_string(s.methods.size()) + " rows for the config's " +
                     std::to_string(s.config.methods.size()) + " methods",
                 errors);
    });
}

std::shared_ptr<SleepFloorSnapshot> sleepFloorSnapshotFromJson(const nlohmann::json& j,
                                                               std::vector<std::string>& errors)
{
    return readChecked<SleepFloorSnapshot>(
        j, errors, [](const SleepFloorSnapshot& s, std::vector<std::string>& errors) {
            const size_t requests = s.config.requestsNs.size();
            const size_t methods = s.config.methods.size();
            checkFit(s.cells.size() == requests * methods,
                     "cells has " + std::to_string(s.cells.size()) + " entries; the config's " +
                         std::to_string(requests) + " requests × " + std::to_string(methods) + " methods need " +
                         std::to_string(requests * methods),
                     errors);
            checkFit(s.floorNs.empty() || s.floorNs.size() == methods,
                     "floor_ns has " + std::to_string(s.floorNs.size()) + " entries for the config's " +
                         std::to_string(methods) + " methods",
                     errors);
            checkFit(s.currentRequest >= -1 && s.currentRequest < int64_t(requests),
                     "current_request " + std::to_string(s.currentRequest) + " must be -1 … " +
                         std::to_string(int64_t(requests) - 1),
                     errors);
            for (const SleepSample& x : s.rawSamples())
                if (x.request >= requests || x.method >= methods) {
                    errors.push_back("samples: a sample names request " + std::to_string(x.request) + " and method " +
                                     std::to_string(x.method) + ", outside the config's " + std::to_string(requests) +
                                     " × " + std::to_string(methods));
                    break;
                }
        });
}

std::shared_ptr<InversionSnapshot> inversionSnapshotFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    return readSnapshot<InversionSnapshot>(j, errors);
}

std::shared_ptr<ContentionSnapshot> contentionSnapshotFromJson(const nlohmann::json& j,
                                                               std::vector<std::string>& errors)
{
    return readChecked<ContentionSnapshot>(
        j, errors, [](const ContentionSnapshot& s, std::vector<std::string>& errors) {
            checkFit(s.kinds.size() == s.config.kinds.size(),
                     "kinds has " + std::to_string(s.kinds.size()) + " entries for the config's " +
                         std::to_string(s.config.kinds.size()) + " lock kinds",
                     errors);
            checkFit(s.currentKind >= -1 && s.currentKind < int64_t(s.kinds.size()),
                     "current_kind " + std::to_string(s.currentKind) + " must be -1 … " +
                         std::to_string(int64_t(s.kinds.size()) - 1),
                     errors);
            for (size_t i = 0; i < s.kinds.size(); ++i)
                if (!s.kinds[i]) {
                    errors.push_back("kinds[" + std::to_string(i) + "] must be an object (a pending kind has one too)");
                    break;
                }
        });
}

std::shared_ptr<DeadlineSnapshot> deadlineSnapshotFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    return readChecked<DeadlineSnapshot>(j, errors, [](const DeadlineSnapshot& s, std::vector<std::string>& errors) {
        for (const DeadlineJob& job : s.jobs)
            if (job.slot < 0 || job.slot >= DeadlineAggregator::kMaxSlots) {
                errors.push_back("jobs: a job names slot " + std::to_string(job.slot) + ", outside 0 … " +
                                 std::to_string(DeadlineAggregator::kMaxSlots - 1));
                break;
            }
    });
}

std::shared_ptr<SweepSnapshot> sweepSnapshotFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    return readChecked<SweepSnapshot>(j, errors, [](const SweepSnapshot& s, std::vector<std::string>& errors) {
        // The page walks the config's settings and indexes the results and the running setting by them.
        const size_t settings = s.config.settings.size();
        checkFit(s.total == settings,
                 "total " + std::to_string(s.total) + " must be the config's " + std::to_string(settings) + " settings",
                 errors);
        checkFit(s.results.size() <= settings,
                 "results has " + std::to_string(s.results.size()) + " rows for the config's " +
                     std::to_string(settings) + " settings",
                 errors);
        checkFit(s.current < std::max<size_t>(settings, 1),
                 "current " + std::to_string(s.current) + " must be 0 … " +
                     std::to_string(std::max<size_t>(settings, 1) - 1),
                 errors);
        for (size_t i = 0; i < s.results.size() && i < settings; ++i)
            if (!(s.results[i].setting == s.config.settings[i])) {
                errors.push_back("results[" + std::to_string(i) + "].setting is not the config's setting " +
                                 std::to_string(i) + " (" + s.config.settings[i].label() + ")");
                break;
            }
    });
}

std::shared_ptr<NoiseSnapshot> noiseSnapshotFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    return readChecked<NoiseSnapshot>(j, errors, [](const NoiseSnapshot& s, std::vector<std::string>& errors) {
        checkFit(s.cpus.size() <= std::max<size_t>(s.config.cpus.size(), 1),
                 "cpus has " + std::to_string(s.cpus.size()) + " rows for the config's " +
                     std::to_string(s.config.cpus.size()) + " CPUs",
                 errors);
        for (const NoiseCpuStats& c : s.cpus)
            checkFit(c.histogram.empty() || c.histogram.size() == kNoiseHistogramBuckets,
                     "cpus: a histogram has " + std::to_string(c.histogram.size()) + " buckets, not 0 or " +
                         std::to_string(kNoiseHistogramBuckets),
                     errors);
    });
}
} // namespace rtscope
