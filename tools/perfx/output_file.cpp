#include "output_file.hpp"

#include <cstdint>
#include <cstring>
#include <iostream>
#include <optional>
#include <streambuf>
#include <vector>

#include "perfx/output_file.hpp"

namespace perfx::cli {

// An unbuffered-for-big-writes streambuf over a perfx::OutputFile: small writes gather in
// a 64 KiB buffer, a write larger than that (the exporters hand over 256 KiB chunks)
// goes straight to the file. Counts the bytes written and keeps the first error.
class OutputFile::FdBuf : public std::streambuf {
 public:
  explicit FdBuf(perfx::OutputFile& file) : file_(file), buffer_(kBufferSize) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  [[nodiscard]] const std::optional<Error>& error() const { return error_; }
  [[nodiscard]] bool touched() const { return written_ != 0 || pptr() != pbase(); }
  bool drain() {
    const auto n = static_cast<std::size_t>(pptr() - pbase());
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return put(buffer_.data(), n);
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const auto size = static_cast<std::size_t>(n);
    if (size > static_cast<std::size_t>(epptr() - pptr())) {
      if (!drain()) return 0;
      if (size >= buffer_.size()) return put(s, size) ? n : 0;
    }
    std::memcpy(pptr(), s, size);
    pbump(static_cast<int>(n));
    return n;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  static constexpr std::size_t kBufferSize = 64 * 1024;
  bool put(const char* p, std::size_t n) {
    if (error_) return false;
    if (auto done = file_.write(p, n); !done) {
      error_ = std::move(done).error();
      return false;
    }
    written_ += n;
    return true;
  }
  perfx::OutputFile& file_;
  std::vector<char> buffer_;
  std::uint64_t written_ = 0;
  std::optional<Error> error_;
};

OutputFile::OutputFile(perfx::OutputFile file)
    : file_(std::make_unique<perfx::OutputFile>(std::move(file))),
      buf_(std::make_unique<FdBuf>(*file_)),
      own_(std::make_unique<std::ostream>(buf_.get())),
      out_(own_.get()) {}

OutputFile::OutputFile() : out_(&std::cout) {}

OutputFile::OutputFile(OutputFile&&) noexcept = default;

Result<OutputFile> OutputFile::open(const std::string& path) {
  if (path.empty() || path == "-") return OutputFile();
  PERFX_TRY(file, perfx::OutputFile::create(path, CreateMode::kWholeFile));
  return OutputFile(std::move(file));
}

Result<void> OutputFile::finish() {
  if (!buf_) {  // stdout
    if (!out_->flush()) return fail(Errc::kIo, "cannot write to stdout");
    return {};
  }
  (void)buf_->drain();
  std::optional<Error> err = buf_->error();
  buf_.reset();
  if (err) {
    file_.reset();  // the temporary goes; an existing file stays as it was
    return tl::unexpected(std::move(*err));
  }
  auto done = file_->commit();
  file_.reset();
  return done;
}

OutputFile::~OutputFile() {
  if (!buf_) return;
  // Unfinished (an error on the way): what was written replaces the file, as a finished
  // one would; a file not written to at all is left as it was.
  if (buf_->touched()) (void)finish();
}

}  // namespace perfx::cli
