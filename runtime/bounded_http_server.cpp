#include "runtime/bounded_http_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace adarl {

namespace {

using clock_type = std::chrono::steady_clock;

/// cpp-httplib's server with its request parser and router opened to our own sockets.
class routes_server final : public httplib::Server {
 public:
  /// Reads one request from `s` and writes its answer (Connection: close); false when
  /// no request came (the stream ended or failed first).
  /// (A template only so that the call of the other cpp-httplib version is not compiled.)
  template <class Stream>
  bool answer(Stream& s) {
    bool closed = false;
    const auto setup = [](httplib::Request&) {};
    // cpp-httplib 0.11 (Debian 12) reads the peers' addresses from the stream; 0.18
    // (Debian 13) takes them as arguments.
    if constexpr (requires { process_request(s, true, closed, setup); }) {
      return process_request(s, /*close_connection=*/true, closed, setup);
    } else {
      std::string remote_ip, local_ip;
      int remote_port = 0, local_port = 0;
      s.get_remote_ip_and_port(remote_ip, remote_port);
      s.get_local_ip_and_port(local_ip, local_port);
      return process_request(s, remote_ip, remote_port, local_ip, local_port,
                             /*close_connection=*/true, closed, setup);
    }
  }
};

/// "ADDRESS" and port of a socket's own end (`peer` false) or its peer's.
void address_of(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  const int rc = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len)
                      : ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ip.clear();
  port = 0;
  if (rc != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

/// A non-blocking connection seen through one deadline: every wait for bytes (in or
/// out) ends at `deadline` however the client paces them, or at once when `wake` turns
/// readable (the server stops). Reads stop after `max_read` bytes. Writes are gathered
/// and sent by flush() (or when 64 KiB are pending).
class deadline_stream final : public httplib::Stream {
 public:
  deadline_stream(int fd, int wake, clock_type::time_point deadline, size_t max_read)
      : fd_(fd), wake_(wake), deadline_(deadline), max_read_(max_read) {}

  bool is_readable() const override { return pos_ < len_ || wait(POLLIN); }
  bool is_writable() const override { return wait(POLLOUT); }

  ssize_t read(char* ptr, size_t size) override {
    while (pos_ == len_) {
      if (read_ >= max_read_ || !wait(POLLIN)) return -1;
      const ssize_t n = ::recv(fd_, buf_, std::min(sizeof buf_, max_read_ - read_), 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n <= 0) return n;
      read_ += size_t(n);
      pos_ = 0;
      len_ = size_t(n);
    }
    const size_t k = std::min(size, len_ - pos_);
    std::memcpy(ptr, buf_ + pos_, k);
    pos_ += k;
    return ssize_t(k);
  }

  ssize_t write(const char* ptr, size_t size) override {
    out_.append(ptr, size);
    if (out_.size() >= 65536 && !flush()) return -1;
    return ssize_t(size);
  }

  /// Sends what write() gathered; false when the deadline or a stop came first.
  bool flush() {
    size_t sent = 0;
    while (sent < out_.size()) {
      if (!wait(POLLOUT)) return false;
      const ssize_t n = ::send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n < 0) return false;
      sent += size_t(n);
    }
    out_.clear();
    return true;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(fd_, /*peer=*/true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(fd_, /*peer=*/false, ip, port);
  }
  socket_t socket() const override { return fd_; }

 private:
  /// True when the socket is ready for `events` before the deadline and no stop came.
  bool wait(short events) const {
    for (;;) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - clock_type::now());
      if (left.count() <= 0) return false;
      pollfd p[2] = {{fd_, events, 0}, {wake_, POLLIN, 0}};
      const int r = ::poll(p, 2, int(std::min<int64_t>(left.count(), 60000)));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 || p[1].revents) return false;
      if (p[0].revents) return true;  // ready, or hung up: recv/send will say which
    }
  }

  int fd_, wake_;
  clock_type::time_point deadline_;
  size_t max_read_;
  size_t read_ = 0;  ///< Bytes received so far.
  char buf_[4096];
  size_t pos_ = 0, len_ = 0;  ///< The unread part of buf_.
  std::string out_;
};

void close_socket(int fd) {
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

}  // namespace

struct bounded_http_server::impl {
  http_limits limits;
  routes_server routes;
  int listen_fd = -1;
  int port = 0;
  int wake[2] = {-1, -1};  ///< Written once by stop(): every poll of the threads returns.
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<int> queue;  ///< Guarded by `mutex`.
  bool stopping = false;  ///< Guarded by `mutex`.
  bool stopped = false;   ///< Guarded by `stop_mutex`.
  std::mutex stop_mutex;
  std::thread acceptor;
  std::vector<std::thread> workers;

  void accept_loop();
  void work();
  void answer(int fd);
};

void bounded_http_server::impl::accept_loop() {
  for (;;) {
    pollfd p[2] = {{listen_fd, POLLIN, 0}, {wake[0], POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (p[1].revents) return;
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of descriptors: let the threads close some before trying again.
      if (errno == EMFILE || errno == ENFILE)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    std::unique_lock lock(mutex);
    if (queue.size() >= limits.queue) {
      lock.unlock();
      close_socket(fd);  // full: the client retries later rather than wait unboundedly
      continue;
    }
    queue.push_back(fd);
    ready.notify_one();
  }
}

void bounded_http_server::impl::work() {
  for (;;) {
    int fd = -1;
    {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return stopping || !queue.empty(); });
      if (stopping) return;
      fd = queue.front();
      queue.pop_front();
    }
    answer(fd);
  }
}

void bounded_http_server::impl::answer(int fd) {
  const auto deadline =
      clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                              std::chrono::duration<double>(limits.request_seconds));
  deadline_stream s(fd, wake[0], deadline, limits.request_bytes);
  try {
    if (routes.answer(s)) s.flush();
  } catch (const std::exception&) {
    // A route that throws loses its answer, not the thread.
  }
  close_socket(fd);
}

bounded_http_server::bounded_http_server(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

bounded_http_server::~bounded_http_server() { stop(); }

result<std::unique_ptr<bounded_http_server>> bounded_http_server::bind(const std::string& host,
                                                                       int port,
                                                                       const std::string& listen,
                                                                       http_limits limits) {
  const std::string what = "cannot listen on " + listen + " (";
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found))
    return error{what + ::gai_strerror(rc) + ")"};
  int fd = -1, err = 0;
  for (const addrinfo* ai = found; ai; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    // SO_REUSEADDR only: SO_REUSEPORT would let a second run share (and split) a port
    // another one listens on instead of failing.
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) break;
    err = errno;
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(found);
  if (fd < 0) return error{what + std::strerror(err) + ")"};
  auto p = std::make_unique<impl>();
  p->limits = limits;
  p->limits.threads = std::max<uint32_t>(1, limits.threads);
  p->listen_fd = fd;
  std::string ip;
  address_of(fd, /*peer=*/false, ip, p->port);
  if (::pipe2(p->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    err = errno;
    ::close(fd);
    return error{what + "no pipe: " + std::strerror(err) + ")"};
  }
  return std::unique_ptr<bounded_http_server>(new bounded_http_server(std::move(p)));
}

httplib::Server& bounded_http_server::routes() { return impl_->routes; }

int bounded_http_server::port() const { return impl_->port; }

void bounded_http_server::serve() {
  auto& p = *impl_;
  std::lock_guard guard(p.stop_mutex);
  if (p.stopped || p.acceptor.joinable()) return;
  for (uint32_t i = 0; i < p.limits.threads; ++i) p.workers.emplace_back([&p] { p.work(); });
  p.acceptor = std::thread([&p] { p.accept_loop(); });
}

void bounded_http_server::stop() {
  auto& p = *impl_;
  std::lock_guard guard(p.stop_mutex);
  if (p.stopped) return;
  p.stopped = true;
  {
    std::lock_guard lock(p.mutex);
    p.stopping = true;
  }
  const char byte = 1;
  [[maybe_unused]] const auto n = ::write(p.wake[1], &byte, 1);
  p.ready.notify_all();
  if (p.acceptor.joinable()) p.acceptor.join();
  for (auto& t : p.workers) t.join();
  for (int fd : p.queue) close_socket(fd);
  p.queue.clear();
  ::close(p.listen_fd);
  ::close(p.wake[0]);
  ::close(p.wake[1]);
}

}  // namespace adarl
