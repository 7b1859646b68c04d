#pragma once
// The reading side of a recording's blocks (recording_blocks.h): bounds-checked reads of one block's payload in the
// encoder's forms (little-endian integers, varints, zigzag), and where the bytes come from (memory for tests and
// fuzzing, a file read block by block). Internal to engine/recording: used by recording_reader.cpp.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <sys/stat.h>

#include "engine/util/input_file.h"

namespace rtscope::recording_blocks {

// Bounds-checked reads from one block's payload.
class Payload {
public:
    explicit Payload(std::string_view bytes)
        : m_bytes(bytes)
    {}
    bool u8(uint8_t& v) { return le(v, 1); }
    bool u16(uint16_t& v) { return le(v, 2); }
    bool u32(uint32_t& v) { return le(v, 4); }
    bool u64(uint64_t& v) { return le(v, 8); }
    bool i64(int64_t& v) { return twosComplement<uint64_t>(v); }
    bool i32(int32_t& v) { return twosComplement<uint32_t>(v); }
    bool f64(double& v)
    {
        uint64_t bits = 0;
        if (!le(bits, 8))
            return false;
        std::memcpy(&v, &bits, sizeof v);
        return true;
    }
    // Exactly the encoder's form: at most 10 bytes, and the 10th may only carry the top bit of 64.
    bool varint(uint64_t& v)
    {
        v = 0;
        for (int i = 0; i < 10; ++i) {
            if (m_pos >= m_bytes.size())
                return false;
            const auto b = uint8_t(m_bytes[m_pos++]);
            if (i == 9 && b > 1)
                return false;
            v |= uint64_t(b & 0x7f) << (7 * i);
            if (!(b & 0x80))
                return true;
        }
        return false;
    }
    bool zigzag(int64_t& v)
    {
        uint64_t u = 0;
        if (!varint(u))
            return false;
        v = int64_t((u >> 1) ^ (~(u & 1) + 1));
        return true;
    }
    bool bytes(size_t n, std::string_view& out)
    {
        if (n > m_bytes.size() - m_pos)
            return false;
        out = m_bytes.substr(m_pos, n);
        m_pos += n;
        return true;
    }
    size_t left() const { return m_bytes.size() - m_pos; }

private:
    template <class T> bool le(T& v, int n)
    {
        if (size_t(n) > m_bytes.size() - m_pos)
            return false;
        uint64_t x = 0;
        for (int i = 0; i < n; ++i)
            x |= uint64_t(uint8_t(m_bytes[m_pos + size_t(i)])) << (8 * i);
        m_pos += size_t(n);
        v = T(x);
        return true;
    }
    // A signed integer, stored as the unsigned U of its width.
    template <class U, class S> bool twosComplement(S& v)
    {
        U u = 0;
        if (!le(u, int(sizeof(U))))
            return false;
        v = S(u);
        return true;
    }
    std::string_view m_bytes;
    size_t m_pos = 0;
};

// Where the bytes come from: memory (tests, fuzzing) or a file read block by block.
class Input {
public:
    virtual ~Input() = default;
    virtual bool read(char* dst, size_t n) = 0;
    uint64_t size() const { return m_size; }
    uint64_t offset() const { return m_offset; }
    uint64_t remaining() const { return m_size - m_offset; }

protected:
    uint64_t m_size = 0;
    uint64_t m_offset = 0;
};

class MemoryInput final : public Input {
public:
    explicit MemoryInput(std::string_view bytes)
        : m_bytes(bytes)
    {
        m_size = bytes.size();
    }
    bool read(char* dst, size_t n) override
    {
        if (n > remaining())
            return false;
        std::memcpy(dst, m_bytes.data() + m_offset, n);
        m_offset += n;
        return true;
    }

private:
    std::string_view m_bytes;
};

// A regular file only (openRegularFile): a FIFO given as a recording would block open() where no signal reaches.
class FileInput final : public Input {
public:
    FileInput(const std::string& path, std::string& why)
    {
        UniqueFd fd = openRegularFile(path, why);
        struct stat st {};
        if (!fd || ::fstat(fd.get(), &st) != 0)
            return;
        m_file = ::fdopen(fd.get(), "rb");
        if (!m_file) {
            why = "cannot read '" + path + "': " + std::strerror(errno);
            return;
        }
        (void)fd.release(); // the FILE owns it now
        m_size = uint64_t(st.st_size);
    }
    ~FileInput() override
    {
        if (m_file)
            std::fclose(m_file);
    }
    FileInput(const FileInput&) = delete;
    FileInput& operator=(const FileInput&) = delete;

    bool good() const { return m_file != nullptr; }
    bool read(char* dst, size_t n) override
    {
        if (n > remaining() || std::fread(dst, 1, n, m_file) != n)
            return false;
        m_offset += n;
        return true;
    }

private:
    std::FILE* m_file = nullptr;
};

} // namespace rtscope::recording_blocks
