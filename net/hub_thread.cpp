#include "net/hub_thread.hpp"

#include <exception>

namespace adarl {

std::optional<error> hub_thread::open(worker_socket::options o, const wake_fd& wake,
                                      handlers h) {
  if (!wake.ok()) return error{o.what + ": eventfd failed"};
  auto socket = worker_socket::open(std::move(o));
  if (!socket) return socket.err();
  socket_ = std::move(*socket);
  wake_ = &wake;
  h_ = std::move(h);
  io_ = std::thread([this] { loop(); });
  return std::nullopt;
}

void hub_thread::close() {
  stopping_ = true;
  if (wake_) wake_->signal();
  if (io_.joinable()) io_.join();
}

void hub_thread::loop() {
  const auto warn = [this](const std::string& w) {
    if (h_.warn) h_.warn(w);
  };
  while (!stopping_) {
    auto* zap = socket_->zap();
    zmq::pollitem_t items[] = {{socket_->router().handle(), 0, ZMQ_POLLIN, 0},
                               {nullptr, wake_->fd(), ZMQ_POLLIN, 0},
                               {zap ? zap->handle() : nullptr, 0, ZMQ_POLLIN, 0}};
    try {
      zmq::poll(items, zap ? 3 : 2, h_.wait());
    } catch (const zmq::error_t&) {
      continue;  // EINTR
    }
    try {
      if (zap && (items[2].revents & ZMQ_POLLIN)) socket_->authenticate(warn);
      if ((items[1].revents & ZMQ_POLLIN) && h_.inbox) h_.inbox();
      if ((items[0].revents & ZMQ_POLLIN) && h_.receive) h_.receive();
      if (h_.tick) h_.tick();
    } catch (const std::exception& e) {  // never take the run down from here
      warn(std::string("I/O thread: ") + e.what());
    }
    if (h_.after) h_.after();
  }
  if (h_.finish) h_.finish();
}

}  // namespace adarl
