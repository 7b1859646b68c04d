#include "engine/formats/cyclictest_format.h"

#include "engine/pipeline/histogram.h"
#include "engine/util/json_text.h"
#include "engine/util/whole_number.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sys/utsname.h>

namespace rtscope {

namespace {

// Real files are kilobytes (a -h 100000 run with 8 threads is ~6 MB); anything this large is not one, and
// reading it would only let a hostile file make us allocate.
constexpr size_t kMaxInputBytes = size_t(64) << 20;
// The JSON carries bins as sparse keys, so one key like "999999999" would make a huge vector: cap the range.
constexpr uint64_t kMaxJsonBinUs = uint64_t(1) << 22; // ~4.2 s, far beyond any -h a user passes
constexpr uint64_t kMaxJsonBinsTotal = uint64_t(1) << 24;
constexpr uint64_t kMaxJsonThreads = 4096;
// The text's columns: one per thread (the JSON's limit), and -H's summary column.
constexpr size_t kMaxTextColumns = kMaxJsonThreads + 1;

std::string tooLarge(size_t size)
{
    return "input is " + std::to_string(size) + " bytes, more than the " + std::to_string(kMaxInputBytes >> 20) +
           " MiB a cyclictest file can plausibly be";
}

// What both parsers do around @p parse(): an input past kMaxInputBytes is refused unread, and an exception becomes
// the error (only allocation failure can throw, but "never throws" is the contract).
template <class Parse> bool parseGuarded(std::string_view text, std::string& error, Parse&& parse)
{
    if (text.size() > kMaxInputBytes) {
        error = tooLarge(text.size());
        return false;
    }
    try {
        return parse();
    } catch (const std::exception& e) {
        error = std::string("cannot parse: ") + e.what();
        return false;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Text writer

void appendf(std::string& out, const char* format, unsigned long long value)
{
    char buf[48];
    const int n = std::snprintf(buf, sizeof buf, format, value);
    if (n > 0)
        out.append(buf, std::min(size_t(n), sizeof buf - 1));
}

// cyclictest prints its signed longs with %lu, so a negative value shows as its two's complement; we do the same
// so that files compare byte for byte, and the parser casts back.
unsigned long long asPrinted(int64_t v)
{
    return static_cast<unsigned long long>(static_cast<uint64_t>(v));
}

int64_t truncatedAvg(const CyclictestThread& t)
{
    // cyclictest prints (long)(sum / cycles), i.e. truncated toward zero, and 0 when there were no cycles.
    if (t.cycles == 0 || !std::isfinite(t.avgUs))
        return 0;
    constexpr double kLimit = 9.2e18; // converting a double beyond int64's range is undefined behaviour
    if (t.avgUs >= kLimit || t.avgUs <= -kLimit)
        return 0;
    return static_cast<int64_t>(t.avgUs);
}

// ---------------------------------------------------------------------------------------------------------------
// Text parser

class Lines {
public:
    explicit Lines(std::string_view text)
        : m_text(text)
    {}

    bool next(std::string_view& line)
    {
        if (m_pos >= m_text.size())
            return false;
        const size_t nl = m_text.find('\n', m_pos);
        const size_t end = nl == std::string_view::npos ? m_text.size() : nl;
        line = m_text.substr(m_pos, end - m_pos);
        if (line.ends_with('\r')) // a file that passed through a Windows editor
            line.remove_suffix(1);
        m_pos = nl == std::string_view::npos ? m_text.size() : nl + 1;
        ++m_number;
        return true;
    }
    int number() const { return m_number; }

private:
    std::string_view m_text;
    size_t m_pos = 0;
    int m_number = 0;
};

// The tokens of a line one at a time: a hostile line may hold millions, and a list of them (16 bytes a token of two)
// made a 62 MB one-row file cost gigabytes.
class Tokens {
public:
    explicit Tokens(std::string_view s)
        : m_s(s)
    {}
    bool next(std::string_view& token)
    {
        while (m_i < m_s.size() && (m_s[m_i] == ' ' || m_s[m_i] == '\t'))
            ++m_i;
        const size_t start = m_i;
        while (m_i < m_s.size() && m_s[m_i] != ' ' && m_s[m_i] != '\t')
            ++m_i;
        token = m_s.substr(start, m_i - start);
        return m_i > start;
    }
    /// The tokens left, counted without keeping them.
    size_t countRest()
    {
        size_t n = 0;
        for (std::string_view t; next(t);)
            ++n;
        return n;
    }

private:
    std::string_view m_s;
    size_t m_i = 0;
};

bool parseU64(std::string_view s, uint64_t& value)
{
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    return readWholeNumber(s, value);
}

bool checkedAdd(uint64_t& acc, uint64_t v)
{
    return !__builtin_add_overflow(acc, v, &acc);
}

// Quotes a piece of a hostile line for an error message: short, and without control bytes.
std::string quoted(std::string_view s)
{
    std::string out = "'";
    for (size_t i = 0; i < s.size() && i < 40; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        out += (c >= 0x20 && c < 0x7f) ? char(c) : '?';
    }
    if (s.size() > 40)
        out += "...";
    return out + "'";
}

class TextParser {
public:
    explicit TextParser(std::string_view text)
        : m_lines(text)
    {}

    bool parse(CyclictestData& out);
    const std::string& error() const { return m_error; }

private:
    bool fail(std::string what, int line = -1)
    {
        m_error = "line " + std::to_string(line < 0 ? m_lines.number() : line) + ": " + std::move(what);
        return false;
    }
    bool nextLine(std::string_view& line, const char* expected)
    {
        if (m_lines.next(line))
            return true;
        return fail(std::string("unexpected end of input, expected '") + expected + "'", m_lines.number() + 1);
    }
    bool valuesAfter(std::string_view line, std::string_view label, std::vector<uint64_t>& values)
    {
        if (!line.starts_with(label))
            return fail("expected '" + std::string(label) + "', found " + quoted(line));
        values.clear();
        Tokens toks(line.substr(label.size()));
        for (std::string_view tok; toks.next(tok);) {
            uint64_t v = 0;
            if (!parseU64(tok, v))
                return fail("expected a non-negative number after '" + std::string(label) + "', found " + quoted(tok));
            if (values.size() == kMaxTextColumns)
                return tooManyColumns(values.size() + 1 + toks.countRest());
            values.push_back(v);
        }
        return true;
    }
    bool labeledValues(const char* label, std::vector<uint64_t>& values)
    {
        std::string_view line;
        return nextLine(line, label) && valuesAfter(line, label, values);
    }
    bool tooManyColumns(size_t found)
    {
        return fail(std::to_string(found) + " columns; cyclictest writes one per measuring thread, at most " +
                    std::to_string(kMaxJsonThreads) + " (and -H's summary column)");
    }
    bool expectSize(const std::vector<uint64_t>& values, size_t n, const char* what)
    {
        if (values.size() == n)
            return true;
        return fail("expected " + std::to_string(n) + " " + what + ", found " + std::to_string(values.size()));
    }

    Lines m_lines;
    std::string m_error;
};

bool TextParser::parse(CyclictestData& out)
{
    CyclictestData data;
    std::string_view line;

    // Before the histogram cyclictest may print the dma-latency note and, without -q, its status lines (with
    // terminal escapes) when stdout was captured: keep the comments, skip the rest.
    bool found = false;
    while (m_lines.next(line)) {
        if (line == "# Histogram") {
            found = true;
            break;
        }
        if (line.starts_with('#'))
            data.preamble.emplace_back(line);
    }
    if (!found) {
        m_error = "no '# Histogram' line found: not a cyclictest histogram";
        return false;
    }

    std::vector<std::vector<uint64_t>> columns;
    size_t rows = 0;
    bool haveColumns = false;
    for (;;) {
        if (!nextLine(line, "# Total:"))
            return false;
        if (line.starts_with('#'))
            break;
        // Token by token into the columns: a row costs its counts (8 bytes each, at least 2 of file), nothing more.
        Tokens toks(line);
        std::string_view tok;
        uint64_t bin = 0;
        if (!toks.next(tok) || !parseU64(tok, bin))
            return fail("expected a histogram row or '# Total:', found " + quoted(line));
        if (bin != rows)
            return fail("expected bin " + std::to_string(rows) + ", found " + quoted(tok));
        size_t counts = 0;
        for (; toks.next(tok); ++counts) {
            if (counts == kMaxTextColumns)
                return tooManyColumns(counts + 1 + toks.countRest());
            if (haveColumns && counts == columns.size())
                return fail("expected " + std::to_string(columns.size()) + " counts, found " +
                            std::to_string(counts + 1 + toks.countRest()));
            uint64_t v = 0;
            if (!parseU64(tok, v))
                return fail("expected a count, found " + quoted(tok));
            if (!haveColumns)
                columns.emplace_back();
            columns[counts].push_back(v);
        }
        if (!haveColumns) {
            if (counts == 0)
                return fail("histogram row without counts");
            haveColumns = true;
        } else if (counts != columns.size()) {
            return fail("expected " + std::to_string(columns.size()) + " counts, found " + std::to_string(counts));
        }
        ++rows;
    }

    // The loop above has read the footer's first line.
    const int totalLine = m_lines.number();
    std::vector<uint64_t> totals;
    if (!valuesAfter(line, "# Total:", totals))
        return false;
    std::vector<uint64_t> mins, avgs, maxs, overflows;
    if (!labeledValues("# Min Latencies:", mins))
        return false;
    const size_t threads = mins.size();
    if (threads == 0)
        return fail("no thread columns");
    if (!haveColumns)
        columns.resize(totals.size()); // a histogram of zero bins: the totals say how many columns there are
    // -H (--histofall) adds a summary column to the rows, the totals, the maxima and the overflows.
    const bool summaryColumn = threads > 1 && columns.size() == threads + 1;
    const size_t wide = summaryColumn ? threads + 1 : threads;
    if (columns.size() != wide)
        return fail(std::to_string(threads) + " minima for a histogram of " + std::to_string(columns.size()) +
                    " columns");
    if (totals.size() != wide)
        return fail("expected " + std::to_string(wide) + " totals, found " + std::to_string(totals.size()), totalLine);
    if (!labeledValues("# Avg Latencies:", avgs) || !expectSize(avgs, threads, "averages") ||
        !labeledValues("# Max Latencies:", maxs) || !expectSize(maxs, wide, "maxima") ||
        !labeledValues("# Histogram Overflows:", overflows) || !expectSize(overflows, wide, "overflow counts"))
        return false;
    static constexpr char kCycleHeader[] = "# Histogram Overflow at cycle number:";
    if (!nextLine(line, kCycleHeader))
        return false;
    if (line != kCycleHeader)
        return fail(std::string("expected '") + kCycleHeader + "', found " + quoted(line));

    for (size_t j = 0; j < columns.size(); ++j) {
        uint64_t sum = 0;
        for (uint64_t v : columns[j])
            if (!checkedAdd(sum, v))
                return fail("the counts of column " + std::to_string(j) + " overflow", totalLine);
        if (sum != totals[j])
            return fail("total " + std::to_string(totals[j]) + " of column " + std::to_string(j) +
                            " differs from the sum of its bins, " + std::to_string(sum),
                        totalLine);
    }
    data.threads.resize(threads);
    for (size_t i = 0; i < threads; ++i) {
        const std::string label = "# Thread " + std::to_string(i) + ":";
        if (!nextLine(line, label.c_str()))
            return false;
        if (!line.starts_with(label))
            return fail("expected '" + label + "', found " + quoted(line));
        CyclictestThread& t = data.threads[i];
        Tokens toks(line.substr(label.size()));
        uint64_t others = 0;
        uint64_t cycles = 0; ///< listed on the line
        bool haveOthers = false;
        for (std::string_view tok; toks.next(tok);) {
            if (tok == "#") {
                // " # %05lu others" closes the line when more overflows happened than cyclictest stored.
                std::string_view count, word;
                if (!toks.next(count) || !parseU64(count, others) || !toks.next(word) || word != "others" ||
                    toks.countRest() != 0)
                    return fail("expected '# N others' at the end of the line");
                haveOthers = true;
                break;
            }
            uint64_t cycle = 0;
            if (!parseU64(tok, cycle))
                return fail("expected a cycle number, found " + quoted(tok));
            // cyclictest lists at most as many as it counted: more are counted (the check below names them), not
            // kept, so that a hostile line costs no memory.
            if (cycles < overflows[i])
                t.overflowCycles.push_back(cycle);
            ++cycles;
        }
        uint64_t listed = cycles;
        if (!checkedAdd(listed, others) || listed != overflows[i] || (haveOthers && others == 0))
            return fail("thread " + std::to_string(i) + " lists " + std::to_string(cycles) + " overflow cycles and " +
                        std::to_string(others) + " others, but reports " + std::to_string(overflows[i]) + " overflows");

        t.bins = std::move(columns[i]);
        t.overflows = overflows[i];
        t.cycles = totals[i];
        if (!checkedAdd(t.cycles, t.overflows))
            return fail("the sample count of thread " + std::to_string(i) + " overflows", totalLine);
        t.minUs = static_cast<int64_t>(mins[i]);
        t.avgUs = static_cast<double>(static_cast<int64_t>(avgs[i]));
        t.maxUs = static_cast<int64_t>(maxs[i]);
    }
    // After the thread lines: the blank line, and comments (an identity, an SMI count) kept as the trailer.
    while (m_lines.next(line))
        if (line.starts_with('#'))
            data.trailer.emplace_back(line);
    out = std::move(data);
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON

std::string rfc2822Utc(int64_t unixSec)
{
    // strftime's %a and %b follow LC_TIME, which a Qt application sets from the environment; cyclictest's
    // readers expect the English names.
    static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    const auto t = static_cast<time_t>(unixSec);
    std::tm tm{};
    if (!gmtime_r(&t, &tm) || tm.tm_wday < 0 || tm.tm_wday > 6 || tm.tm_mon < 0 || tm.tm_mon > 11)
        return {};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday], tm.tm_mday,
                  kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
    return buf;
}

int kernelIsRealtime()
{
    // PREEMPT_RT kernels expose /sys/kernel/realtime containing "1"; cyclictest reports the same flag.
    std::ifstream f("/sys/kernel/realtime");
    int value = 0;
    return (f >> value) && value == 1 ? 1 : 0;
}

int numaNodeOf(int cpu)
{
    // sysfs links each CPU to its node as cpuN/nodeM; a machine without NUMA has no such link: node 0.
    if (cpu < 0)
        return 0;
    std::error_code ec;
    const std::filesystem::path dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        int node = 0;
        if (name.size() > 4 && name.starts_with("node")) {
            const auto [p, err] = std::from_chars(name.data() + 4, name.data() + name.size(), node);
            if (err == std::errc() && p == name.data() + name.size())
                return node;
        }
    }
    return 0;
}

using nlohmann::json;

bool fieldError(std::string& error, const std::string& path, const char* what)
{
    error = path + ": " + what;
    return false;
}

bool readU64(const json& obj, const char* key, const std::string& path, uint64_t& out, std::string& error)
{
    const auto it = obj.find(key);
    if (it == obj.end())
        return fieldError(error, path + "." + key, "missing");
    if (!it->is_number_unsigned())
        return fieldError(error, path + "." + key, "expected a non-negative integer");
    out = it->get<uint64_t>();
    return true;
}

bool readI64(const json& obj, const char* key, const std::string& path, int64_t& out, std::string& error)
{
    const auto it = obj.find(key);
    if (it == obj.end())
        return fieldError(error, path + "." + key, "missing");
    if (it->is_number_unsigned()) {
        if (it->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
            return fieldError(error, path + "." + key, "integer out of range");
        out = int64_t(it->get<uint64_t>());
        return true;
    }
    if (!it->is_number_integer())
        return fieldError(error, path + "." + key, "expected an integer");
    out = it->get<int64_t>();
    return true;
}

bool parseJsonImpl(std::string_view text, CyclictestData& out, std::string& error)
{
    ParsedJson parsed = parseJsonText(text, "the file");
    if (!parsed.ok()) {
        error = parsed.error("not valid JSON: " + parsed.notJson);
        return false;
    }
    const json doc = std::move(parsed.value);
    if (!doc.is_object())
        return fieldError(error, "(top level)", "expected an object");

    // -N (--nsecs) makes cyclictest write every figure in ns and flag it here; we keep µs, and because a µs bin
    // is floor(ns / 1000) the conversion of its per-ns bins is exact.
    bool nanoseconds = false;
    if (const auto it = doc.find("resolution_in_ns"); it != doc.end()) {
        if (!it->is_number_integer() || (it->get<int64_t>() != 0 && it->get<int64_t>() != 1))
            return fieldError(error, "resolution_in_ns", "expected 0 or 1");
        nanoseconds = it->get<int64_t>() == 1;
    }
    const int64_t scale = nanoseconds ? 1000 : 1;

    const auto threadsIt = doc.find("thread");
    if (threadsIt == doc.end())
        return fieldError(error, "thread", "missing");
    if (!threadsIt->is_object())
        return fieldError(error, "thread", "expected an object");
    const json& threadsObj = *threadsIt;
    if (threadsObj.empty())
        return fieldError(error, "thread", "no threads");
    if (threadsObj.size() > kMaxJsonThreads)
        return fieldError(error, "thread", "too many threads");
    if (const auto it = doc.find("num_threads"); it != doc.end()) {
        if (!it->is_number_unsigned() || it->get<uint64_t>() != threadsObj.size())
            return fieldError(error, "num_threads", "does not match the number of entries in \"thread\"");
    }

    CyclictestData data;
    data.threads.resize(threadsObj.size());
    std::vector<bool> seen(threadsObj.size(), false);
    uint64_t binsTotal = 0;
    for (const auto& [key, value] : threadsObj.items()) {
        const std::string path = "thread." + key;
        uint64_t index = 0;
        if (!parseU64(key, index) || index >= threadsObj.size() || seen[index])
            return fieldError(error, path, "thread keys must be 0 .. num_threads-1");
        seen[index] = true;
        if (!value.is_object())
            return fieldError(error, path, "expected an object");
        CyclictestThread& t = data.threads[index];

        if (!readU64(value, "cycles", path, t.cycles, error) || !readI64(value, "min", path, t.minUs, error) ||
            !readI64(value, "max", path, t.maxUs, error))
            return false;
        t.minUs /= scale;
        t.maxUs /= scale;
        const auto avgIt = value.find("avg");
        if (avgIt == value.end())
            return fieldError(error, path + ".avg", "missing");
        if (!avgIt->is_number() || !std::isfinite(avgIt->get<double>()))
            return fieldError(error, path + ".avg", "expected a number");
        t.avgUs = avgIt->get<double>() / double(scale);
        if (const auto cpuIt = value.find("cpu"); cpuIt != value.end()) {
            if (!cpuIt->is_number_integer() || cpuIt->get<int64_t>() < -1 || cpuIt->get<int64_t>() > 1 << 20)
                return fieldError(error, path + ".cpu", "expected a CPU number");
            t.cpu = int(cpuIt->get<int64_t>());
        }

        uint64_t inBins = 0;
        if (const auto histIt = value.find("histogram"); histIt != value.end()) {
            if (!histIt->is_object())
                return fieldError(error, path + ".histogram", "expected an object");
            for (const auto& [binKey, count] : histIt->items()) {
                const std::string binPath = path + ".histogram." + binKey;
                uint64_t bin = 0;
                if (!parseU64(binKey, bin))
                    return fieldError(error, binPath, "bin keys must be non-negative integers");
                bin /= uint64_t(scale);
                if (bin >= kMaxJsonBinUs)
                    return fieldError(error, binPath, "bin beyond the supported range");
                if (!count.is_number_unsigned())
                    return fieldError(error, binPath, "expected a non-negative integer");
                if (bin >= t.bins.size()) {
                    binsTotal += bin + 1 - t.bins.size();
                    if (binsTotal > kMaxJsonBinsTotal)
                        return fieldError(error, binPath, "too many bins in total");
                    t.bins.resize(bin + 1, 0);
                }
                if (!checkedAdd(t.bins[bin], count.get<uint64_t>()) || !checkedAdd(inBins, count.get<uint64_t>()))
                    return fieldError(error, binPath, "count overflows");
            }
        }
        // The JSON does not say how many bins there were; every sample not in a listed bin was an overflow.
        if (inBins > t.cycles)
            return fieldError(error, path + ".cycles", "fewer cycles than samples in the histogram");
        t.overflows = t.cycles - inBins;
    }
    // Which machine: only what cyclictest's sysinfo says; anything else there (or nothing) leaves it unknown.
    if (const auto sysIt = doc.find("sysinfo"); sysIt != doc.end() && sysIt->is_object()) {
        if (const auto it = sysIt->find("nodename"); it != sysIt->end() && it->is_string())
            data.host = it->get<std::string>();
        if (const auto it = sysIt->find("release"); it != sysIt->end() && it->is_string())
            data.kernel = it->get<std::string>();
    }
    out = std::move(data);
    error.clear();
    return true;
}

} // namespace

CyclictestThread cyclictestThreadFrom(const Histogram& h, size_t binsUs)
{
    CyclictestThread t;
    t.bins.assign(binsUs, 0);
    const auto& exact = h.exactUsBins();
    const size_t exactUsed = std::min(binsUs, exact.size());
    std::copy_n(exact.begin(), exactUsed, t.bins.begin());
    if (exactUsed < binsUs) {
        // Without exact bins that far, fall back to the log buckets: each one goes to the µs bin of its midpoint,
        // which is exact up to 512 ns and within the bucket width (< 0.4 %) above.
        h.forEachBucket([&](int64_t low, int64_t high, uint64_t n) {
            const uint64_t bin = uint64_t(low + (high - low) / 2) / 1000;
            if (bin >= exactUsed && bin < binsUs)
                t.bins[bin] += n;
        });
    }
    uint64_t inBins = 0;
    for (uint64_t v : t.bins)
        inBins += v;
    t.cycles = h.count();
    t.overflows = t.cycles >= inBins ? t.cycles - inBins : 0;
    // cyclictest measures in whole µs truncated toward zero (its calcdiff), so min and max follow suit. Its
    // average is the mean of those truncated values, about 0.5 µs below the mean of the exact ones we have.
    t.minUs = h.min() / 1000;
    t.maxUs = h.max() / 1000;
    t.avgUs = h.mean() / 1000.0;
    return t;
}

namespace {

// A preamble or trailer line must stay one comment line, or the file would not parse back.
void appendCyclictestComment(std::string& out, const std::string& line)
{
    std::string clean = line;
    std::replace(clean.begin(), clean.end(), '\n', ' ');
    std::replace(clean.begin(), clean.end(), '\r', ' ');
    if (!clean.starts_with('#'))
        clean.insert(0, "# ");
    out += clean;
    out += '\n';
}

} // namespace

std::string writeCyclictestHistogram(const CyclictestData& data, const std::function<bool()>& keepGoing)
{
    std::string out;
    for (const std::string& line : data.preamble)
        appendCyclictestComment(out, line);
    out += "# Histogram\n";

    size_t rows = 0;
    for (const auto& t : data.threads)
        rows = std::max(rows, t.bins.size());
    std::vector<unsigned long long> totals(data.threads.size(), 0);
    for (size_t i = 0; i < rows; ++i) {
        if (keepGoing && i % 1024 == 0 && !keepGoing())
            return {};
        appendf(out, "%06llu ", i);
        for (size_t j = 0; j < data.threads.size(); ++j) {
            const auto& bins = data.threads[j].bins;
            const uint64_t v = i < bins.size() ? bins[i] : 0;
            totals[j] += v;
            if (j > 0)
                out += '\t';
            appendf(out, "%06llu", v);
        }
        out += '\n';
    }

    out += "# Total:";
    for (unsigned long long total : totals)
        appendf(out, " %09llu", total);
    out += "\n# Min Latencies:";
    for (const auto& t : data.threads)
        appendf(out, " %05llu", asPrinted(t.minUs));
    out += "\n# Avg Latencies:";
    for (const auto& t : data.threads)
        appendf(out, " %05llu", asPrinted(truncatedAvg(t)));
    out += "\n# Max Latencies:";
    for (const auto& t : data.threads)
        appendf(out, " %05llu", asPrinted(t.maxUs));
    out += "\n# Histogram Overflows:";
    for (const auto& t : data.threads)
        appendf(out, " %05llu", t.overflows);
    out += "\n# Histogram Overflow at cycle number:\n";
    for (size_t j = 0; j < data.threads.size(); ++j) {
        const auto& t = data.threads[j];
        appendf(out, "# Thread %llu:", j);
        for (uint64_t cycle : t.overflowCycles)
            appendf(out, " %05llu", cycle);
        if (t.overflowCycles.size() < t.overflows)
            appendf(out, " # %05llu others", t.overflows - t.overflowCycles.size());
        out += '\n';
    }
    for (const std::string& line : data.trailer)
        appendCyclictestComment(out, line);
    out += '\n';
    return out;
}

bool parseCyclictestHistogram(std::string_view text, CyclictestData& out, std::string& error)
{
    return parseGuarded(text, error, [&] {
        TextParser parser(text);
        if (!parser.parse(out)) {
            error = parser.error();
            return false;
        }
        error.clear();
        return true;
    });
}

nlohmann::json cyclictestJson(const CyclictestData& data, const std::string& cmdline, int64_t startUnixSec,
                              int64_t endUnixSec)
{
    json doc;
    doc["file_version"] = 1;
    // cyclictest's own keys carry the stray colon; readers written against its files look for it.
    doc["cmdline:"] = cmdline;
    // Not rt-tests' version: a reader that cares must be able to tell that rtscope wrote this file.
    doc["rt_test_version:"] = std::string("rtscope ") + RTSCOPE_VERSION;
    doc["start_time"] = rfc2822Utc(startUnixSec);
    doc["end_time"] = rfc2822Utc(endUnixSec);
    doc["return_code"] = 0;

    json sysinfo = json::object();
    utsname uts{};
    if (uname(&uts) == 0) {
        sysinfo["sysname"] = uts.sysname;
        sysinfo["nodename"] = uts.nodename;
        sysinfo["release"] = uts.release;
        sysinfo["version"] = uts.version;
        sysinfo["machine"] = uts.machine;
    }
    sysinfo["realtime"] = kernelIsRealtime();
    doc["sysinfo"] = std::move(sysinfo);

    doc["num_threads"] = data.threads.size();
    doc["resolution_in_ns"] = 0; // our figures are µs; 1 would mean cyclictest -N's nanoseconds
    json threads = json::object();
    for (size_t i = 0; i < data.threads.size(); ++i) {
        const auto& t = data.threads[i];
        json hist = json::object();
        for (size_t b = 0; b < t.bins.size(); ++b)
            if (t.bins[b])
                hist[std::to_string(b)] = t.bins[b];
        json th;
        th["histogram"] = std::move(hist);
        th["cycles"] = t.cycles;
        th["min"] = t.minUs;
        th["max"] = t.maxUs;
        // cyclictest prints "%.2f"; a NaN would come out as null, which no reader expects.
        th["avg"] = std::isfinite(t.avgUs) ? std::round(t.avgUs * 100.0) / 100.0 : 0.0;
        th["cpu"] = t.cpu;
        th["node"] = numaNodeOf(t.cpu);
        threads[std::to_string(i)] = std::move(th);
    }
    doc["thread"] = std::move(threads);
    return doc;
}

bool parseCyclictestJson(std::string_view text, CyclictestData& out, std::string& error)
{
    // The checked accessors of parseJsonImpl leave only allocation failure to throw.
    return parseGuarded(text, error, [&] { return parseJsonImpl(text, out, error); });
}

} // namespace rtscope
