#include "net/worker_socket.hpp"

#include "net/curve_key_files.hpp"

namespace adarl {

result<std::unique_ptr<worker_socket>> worker_socket::open(options o) {
  auto s = std::unique_ptr<worker_socket>(new worker_socket());
  for (const auto& key : o.clients) {
    std::string bin(32, '\0');
    if (!is_z85_key(key) || !zmq_z85_decode(reinterpret_cast<uint8_t*>(bin.data()), key.c_str()))
      return error{o.what + ": \"" + key + "\" is not a Z85 public key"};
    s->clients_.insert(bin);
  }
  try {
    if (!s->clients_.empty()) {
      if (!o.curve) return error{o.what + ": a client list needs the run's CURVE keys"};
      // ZeroMQ asks this socket (RFC 27, ZAP) about each connection.
      s->zap_ = zmq::socket_t(s->ctx_, zmq::socket_type::rep);
      s->zap_.set(zmq::sockopt::linger, 0);
      s->zap_.bind("inproc://zeromq.zap.01");
    }
    s->router_ = zmq::socket_t(s->ctx_, zmq::socket_type::router);
    if (o.curve) {
      s->router_.set(zmq::sockopt::curve_server, true);
      s->router_.set(zmq::sockopt::curve_secretkey, o.curve->secret_key);
    }
    s->router_.set(zmq::sockopt::linger, 0);
    s->router_.set(zmq::sockopt::router_handover, true);  // a reconnecting worker keeps its name
    s->router_.set(zmq::sockopt::router_mandatory, true);  // an unreachable worker is an error
    s->router_.set(zmq::sockopt::maxmsgsize, int64_t{64} << 20);  // a peer cannot exhaust memory
    s->router_.bind(o.bind);
    s->endpoint_ = s->router_.get(zmq::sockopt::last_endpoint);
  } catch (const zmq::error_t& e) {
    return error{o.what + ": cannot bind \"" + o.bind + "\": " + e.what()};
  }
  return s;
}

std::optional<worker_socket::incoming> worker_socket::receive(int data_frames) {
  for (;;) {
    zmq::message_t id, body;
    bool extra = false;
    try {
      if (!router_.recv(id, zmq::recv_flags::dontwait)) return std::nullopt;
      if (!id.more() || !router_.recv(body, zmq::recv_flags::dontwait)) continue;
      int after = 0;
      for (bool more = body.more(); more;) {  // drained: the protocol has no more frames
        zmq::message_t frame;
        if (!router_.recv(frame, zmq::recv_flags::dontwait)) break;
        more = frame.more();
        extra = extra || ++after > data_frames;
      }
    } catch (const zmq::error_t&) {
      return std::nullopt;
    }
    if (extra)
      return incoming{id.to_string(),
                      error{"more than " + std::to_string(data_frames + 1) + " frame" +
                            (data_frames ? "s" : "")}};
    return incoming{id.to_string(), decode_remote(body.to_string_view())};
  }
}

bool worker_socket::refuse_other_version(const std::string& id, const error& e) {
  if (e.message.rfind("protocol version", 0) != 0) return false;
  send(id, encode_refused(e.message + ": run the same adarl version on both sides"));
  return true;
}

bool worker_socket::send(const std::string& id, const std::string& payload) {
  try {
    return router_.send(zmq::buffer(id), zmq::send_flags::sndmore | zmq::send_flags::dontwait) &&
           router_.send(zmq::buffer(payload), zmq::send_flags::dontwait);
  } catch (const zmq::error_t&) {
    return false;
  }
}

bool worker_socket::send(const std::string& id, const std::string& header, zmq::message_t& data) {
  try {
    return router_.send(zmq::buffer(id), zmq::send_flags::sndmore | zmq::send_flags::dontwait) &&
           router_.send(zmq::buffer(header), zmq::send_flags::sndmore | zmq::send_flags::dontwait) &&
           router_.send(data, zmq::send_flags::dontwait);
  } catch (const zmq::error_t&) {
    return false;
  }
}

void worker_socket::authenticate(const std::function<void(const std::string&)>& warn) {
  if (!zap_) return;
  for (;;) {
    std::vector<zmq::message_t> frames;
    for (bool more = true; more;) {
      zmq::message_t f;
      if (!zap_.recv(f, zmq::recv_flags::dontwait)) return;
      more = f.more();
      frames.push_back(std::move(f));
    }
    // A REP socket must answer every request, a malformed one too (refused).
    const bool curve = frames.size() >= 7 && frames[5].to_string_view() == "CURVE";
    const bool ok = curve && clients_.count(frames[6].to_string()) > 0;
    if (!ok && ++refused_ <= 10 && warn) {
      // The offered public key (public: safe to print), for adding it to the list.
      char z85[41] = {};
      const bool key = curve && frames[6].size() == 32 &&
                       zmq_z85_encode(z85, static_cast<const uint8_t*>(frames[6].data()), 32);
      warn(std::string("refused a worker ") +
           (key ? "with public key " + std::string(z85) + ": not on the client list"
                : "without CURVE"));
    }
    const std::string status = ok ? "200" : "400";
    const std::string text = ok ? "OK" : "public key not on the client list";
    const std::string id = frames.size() >= 2 ? frames[1].to_string() : std::string();
    zap_.send(zmq::str_buffer("1.0"), zmq::send_flags::sndmore);
    zap_.send(zmq::buffer(id), zmq::send_flags::sndmore);
    zap_.send(zmq::buffer(status), zmq::send_flags::sndmore);
    zap_.send(zmq::buffer(text), zmq::send_flags::sndmore);
    zap_.send(zmq::str_buffer(""), zmq::send_flags::sndmore);
    zap_.send(zmq::str_buffer(""), zmq::send_flags::none);
  }
}

}  // namespace adarl
