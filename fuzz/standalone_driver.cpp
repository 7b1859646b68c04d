// The fuzz targets without libFuzzer, for the test suite (ctest fuzz/<target>, built with the compiler of the
// build): each seed (files, directories of files, and the target's own rtscopeFuzzSeeds()) is run as it is, then
// mutated a fixed number of times by a generator seeded with a constant, so a failure is the same on every run.
// The mutations are the ones that found the crashes the targets guard against: bytes flipped, cut, repeated, and a
// value wrapped in lists or objects nested far past kMaxJsonDepth. A crash or a __builtin_trap() fails the test;
// scripts/fuzz is where coverage-guided fuzzing is done.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Inputs a target makes itself (an agent frame, a recording), where no file in the tree is one.
extern "C" __attribute__((weak)) void rtscopeFuzzSeeds(std::vector<std::string>& seeds);

namespace {

void run(const std::string& input)
{
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string mutated(const std::string& seed, std::mt19937_64& random)
{
    std::string s = seed;
    const auto pick = [&](size_t n) {
        return n ? size_t(random() % n) : 0;
    };
    switch (random() % 6) {
    case 0: // flip a few bytes
        for (int i = 0, n = 1 + int(random() % 8); i < n && !s.empty(); ++i)
            s[pick(s.size())] = char(random());
        break;
    case 1: // cut at a random point
        s.resize(pick(s.size() + 1));
        break;
    case 2: { // repeat a chunk
        const size_t from = pick(s.size() + 1), len = pick(std::min<size_t>(s.size() - from, 256) + 1);
        s.insert(pick(s.size() + 1), s.substr(from, len));
        break;
    }
    case 3: { // nest the value after a ':' (or the whole text) deep in lists or objects
        const size_t depth = (random() % 2) ? 60 + pick(10) : 1000 + pick(100'000);
        const bool objects = random() % 2;
        const std::string open = objects ? "{\"k\":" : "[", close = objects ? "}" : "]";
        std::string deep;
        for (size_t i = 0; i < depth; ++i)
            deep += open;
        deep += "1";
        for (size_t i = 0; i < depth; ++i)
            deep += close;
        const size_t colon = s.find(':', pick(s.size() + 1));
        if (colon == std::string::npos)
            s = deep;
        else
            s.insert(colon + 1, deep + ",\"x\":");
        break;
    }
    case 4: // a run of one structural byte
        s.insert(pick(s.size() + 1), std::string(1 + pick(200'000), "[{\"\\"[random() % 4]));
        break;
    default: // insert random bytes
        for (int i = 0, n = 1 + int(random() % 16); i < n; ++i)
            s.insert(s.begin() + std::ptrdiff_t(pick(s.size() + 1)), char(random()));
        break;
    }
    return s;
}

} // namespace

int main(int argc, char** argv)
{
    int mutations = 200;
    std::vector<std::string> seeds;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--mutations" && i + 1 < argc) {
            mutations = std::atoi(argv[++i]);
            continue;
        }
        std::vector<std::filesystem::path> files;
        if (std::filesystem::is_directory(arg)) {
            for (const auto& e : std::filesystem::directory_iterator(arg))
                if (e.is_regular_file())
                    files.push_back(e.path());
        } else {
            files.emplace_back(arg);
        }
        for (const auto& f : files) {
            std::ifstream in(f, std::ios::binary);
            if (!in) {
                std::fprintf(stderr, "cannot read the seed %s\n", f.c_str());
                return 2;
            }
            seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        }
    }
    if (rtscopeFuzzSeeds)
        rtscopeFuzzSeeds(seeds);
    if (seeds.empty()) {
        std::fprintf(stderr, "no seeds: give files or directories\n");
        return 2;
    }
    std::mt19937_64 random(0x72747363); // fixed: the same inputs on every run
    size_t runs = 0;
    for (const std::string& seed : seeds) {
        run(seed);
        ++runs;
        for (int m = 0; m < mutations; ++m, ++runs)
            run(mutated(seed, random));
    }
    std::printf("%zu inputs from %zu seeds, no crash\n", runs, seeds.size());
    return 0;
}
