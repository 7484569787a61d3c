// Fuzzes the remote worker wire format (net/remote_wire.hpp) both ways, for every
// message kind. The first byte picks the mode. Even: the rest is a frame from the
// network, decoded; what decodes is checked (rewards in [0, 1], chunk < chunks, one
// log-prob per token...) and re-encoding it must give a frame that decodes and encodes
// to the same bytes. Odd: the rest describes a message of any kind, encoded with its
// encode_*(); it must decode, and encode back to the very same bytes (every field came
// back). Errors have a message.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "net/remote_wire.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using adarl::remote_message;

const char* const kKinds[] = {"hello",     "heartbeat",   "bye",        "result",
                              "verify",    "refused",     "error",      "setup",
                              "weights",   "weights_path", "weights_ok", "weights_bad",
                              "chunk_bad", "chunk_ok",    "orders",     "results",
                              "credit"};

// The frame the sender of `m` would have written.
std::string encode(const remote_message& m) {
  using namespace adarl;
  const std::string& t = m.type;
  if (t == "hello")
    return m.role == "generate" ? encode_generate_hello(m.name, m.capacity)
                                : encode_hello(m.credit, m.name);
  if (t == "heartbeat") return encode_heartbeat(m.interval);
  if (t == "bye") return encode_bye();
  if (t == "result") return encode_result(m.session, m.batch, m.verdicts);
  if (t == "verify") return encode_verify(m.session, m.batch, m.items);
  if (t == "refused") return encode_refused(m.reason);
  if (t == "error") return encode_error(m.reason);
  if (t == "setup") return encode_setup(m.session, m.engine, m.interval);
  if (t == "weights")
    return encode_weights(m.session, m.version, m.chunk, m.chunks, m.offset, m.bytes, m.hash,
                          m.chunk_hash);
  if (t == "weights_path")
    return encode_weights_path(m.session, m.version, m.path, m.bytes, m.hash);
  if (t == "weights_ok") return encode_weights_ok(m.session, m.version);
  if (t == "weights_bad") return encode_weights_bad(m.session, m.version, m.reason);
  if (t == "chunk_bad") return encode_chunk_bad(m.session, m.version, m.chunk, m.reason);
  if (t == "chunk_ok") return encode_chunk_ok(m.session, m.version, m.chunk);
  if (t == "orders") return encode_orders(m.session, m.orders, m.prompts);
  if (t == "results") return encode_results(m.session, m.completions, m.credit);
  if (t == "credit") return encode_credit(m.session, m.credit);
  FUZZ_CHECK(false, "decoded an unknown type: " + t);
  return "";
}

void check_decoded(const remote_message& m) {
  for (const auto& v : m.verdicts) FUZZ_CHECK(v.reward >= 0.f && v.reward <= 1.f, m.type);
  FUZZ_CHECK(m.problem.empty() || m.verdicts.empty(), m.problem);
  if (m.type == "heartbeat") FUZZ_CHECK(m.interval >= 0, "interval");
  if (m.type == "hello") FUZZ_CHECK(m.role == "verify" || m.role == "generate", m.role);
  if (m.type == "weights") FUZZ_CHECK(m.chunk < m.chunks && m.offset <= m.bytes, "chunk, offset");
  for (const auto& c : m.completions)
    FUZZ_CHECK(c.tokens.size() == c.logprobs.size(), "one log-prob per token");
  if (!m.problem.empty()) return;  // a result whose verdicts are unusable: not re-sent
  const std::string once = encode(m);
  const auto again = adarl::decode_remote(once);
  FUZZ_CHECK(again.ok(), again.ok() ? "" : again.err().message);
  FUZZ_CHECK(encode(*again) == once, "re-encoding changes a " + m.type);
}

template <class T>
std::vector<T> integers(FuzzedDataProvider& in, size_t most) {
  std::vector<T> v(in.ConsumeIntegralInRange<size_t>(0, most));
  for (auto& x : v) x = in.ConsumeIntegral<T>();
  return v;
}

adarl::work_order order(FuzzedDataProvider& in) {
  adarl::work_order o;
  o.step = in.ConsumeIntegral<uint64_t>();
  o.slot = in.ConsumeIntegral<uint32_t>();
  o.index = in.ConsumeIntegral<uint32_t>();
  o.prompt_id = in.ConsumeIntegral<uint64_t>();
  o.stream = in.ConsumeIntegral<uint64_t>();
  o.eval_round = in.ConsumeIntegral<uint32_t>();
  o.greedy = in.ConsumeBool();
  o.min_version = in.ConsumeIntegral<uint64_t>();
  return o;
}

// A message of any kind with the fields its encoder writes.
remote_message make(FuzzedDataProvider& in) {
  remote_message m;
  m.type = kKinds[in.ConsumeIntegralInRange<size_t>(0, std::size(kKinds) - 1)];
  m.session = in.ConsumeIntegral<uint64_t>();
  m.batch = in.ConsumeIntegral<uint64_t>();
  m.credit = in.ConsumeIntegral<uint32_t>();
  m.capacity = in.ConsumeIntegral<uint32_t>();
  m.version = in.ConsumeIntegral<uint64_t>();
  m.bytes = in.ConsumeIntegral<uint64_t>();
  m.offset = in.ConsumeIntegralInRange<uint64_t>(0, m.bytes);
  m.chunk_hash = in.ConsumeIntegral<uint64_t>();
  m.chunks = in.ConsumeIntegralInRange<uint32_t>(1, UINT32_MAX);
  m.chunk = in.ConsumeIntegralInRange<uint32_t>(0, m.chunks - 1);
  m.role = in.ConsumeBool() ? "generate" : "verify";
  m.interval = in.ConsumeFloatingPoint<double>();
  for (std::string* s : {&m.name, &m.reason, &m.engine, &m.hash, &m.path})
    *s = in.ConsumeRandomLengthString(32);
  for (size_t n = in.ConsumeIntegralInRange<size_t>(0, 4); n > 0; --n) {
    m.verdicts.push_back({in.ConsumeProbability<float>(), in.ConsumeRandomLengthString(16)});
    m.orders.push_back(order(in));
    m.prompts.push_back({in.ConsumeIntegral<uint64_t>(), integers<int32_t>(in, 8)});
    adarl::completion c;
    c.order = order(in);
    c.tokens = integers<int32_t>(in, 8);
    for (size_t k = 0; k < c.tokens.size(); ++k)  // any bits, NaN included
      c.logprobs.push_back(in.ConsumeFloatingPoint<float>());
    c.ended = in.ConsumeBool();
    c.version = in.ConsumeIntegral<uint64_t>();
    m.completions.push_back(std::move(c));
    adarl::remote_item r;
    for (std::string* s : {&r.item.id, &r.item.task, &r.item.verifier, &r.item.prompt,
                           &r.item.answer, &r.item.tests, &r.completion})
      *s = in.ConsumeRandomLengthString(16);
    r.item.difficulty = in.ConsumeIntegral<uint32_t>();
    m.items.push_back(std::move(r));
  }
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    const std::string_view frame(reinterpret_cast<const char*>(data) + 1, size - 1);
    const auto decoded = adarl::decode_remote(frame);
    if (!decoded) {
      FUZZ_CHECK(!decoded.err().message.empty(), "an error has a message");
      return 0;
    }
    check_decoded(*decoded);
    return 0;
  }
  FuzzedDataProvider in(data + 1, size - 1);
  const std::string sent = encode(make(in));
  const auto got = adarl::decode_remote(sent);
  FUZZ_CHECK(got.ok(), got.ok() ? "" : got.err().message);
  check_decoded(*got);
  FUZZ_CHECK(encode(*got) == sent, "a " + got->type + " does not round-trip");
  return 0;
}
