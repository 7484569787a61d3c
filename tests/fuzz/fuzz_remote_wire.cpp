// Fuzzes the remote verifier wire format (actors/remote_wire.hpp) both ways. The first
// byte picks the mode: even, the rest is a frame from the network, decoded; whatever
// decodes is checked (rewards in [0, 1], a known type) and must survive re-encoding and
// decoding unchanged. Odd, the rest describes a message of every kind, encoded with
// encode_*() and decoded: it must come back equal. Errors have a message.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "actors/remote_wire.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using adarl::remote_message;

bool same_items(const std::vector<adarl::remote_item>& a,
                const std::vector<adarl::remote_item>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto &x = a[i].item, &y = b[i].item;
    if (x.id != y.id || x.task != y.task || x.verifier != y.verifier ||
        x.prompt != y.prompt || x.answer != y.answer || x.tests != y.tests ||
        x.difficulty != y.difficulty || a[i].completion != b[i].completion)
      return false;
  }
  return true;
}

bool same(const remote_message& a, const remote_message& b) {
  if (a.type != b.type || a.session != b.session || a.batch != b.batch ||
      a.credit != b.credit || a.name != b.name || a.interval != b.interval ||
      a.problem != b.problem || a.verdicts.size() != b.verdicts.size())
    return false;
  for (size_t i = 0; i < a.verdicts.size(); ++i)
    if (a.verdicts[i].reward != b.verdicts[i].reward ||
        a.verdicts[i].reason != b.verdicts[i].reason)
      return false;
  return same_items(a.items, b.items);
}

// The frame the sender of `m` would have written.
std::string encode(const remote_message& m) {
  if (m.type == "hello") return adarl::encode_hello(m.credit, m.name);
  if (m.type == "heartbeat") return adarl::encode_heartbeat(m.interval);
  if (m.type == "bye") return adarl::encode_bye();
  if (m.type == "result") return adarl::encode_result(m.session, m.batch, m.verdicts);
  return adarl::encode_verify(m.session, m.batch, m.items);
}

void check_decoded(const remote_message& m) {
  const bool known = m.type == "hello" || m.type == "heartbeat" || m.type == "bye" ||
                     m.type == "result" || m.type == "verify";
  FUZZ_CHECK(known, m.type);
  for (const auto& v : m.verdicts) FUZZ_CHECK(v.reward >= 0.f && v.reward <= 1.f, m.type);
  FUZZ_CHECK(m.problem.empty() || m.verdicts.empty(), m.problem);
  FUZZ_CHECK(m.interval >= 0, "interval");
  if (!m.problem.empty()) return;  // a result whose verdicts are unusable: not re-sent
  const auto again = adarl::decode_remote(encode(m));
  FUZZ_CHECK(again.ok(), again.ok() ? "" : again.err().message);
  FUZZ_CHECK(same(m, *again), "re-encoding changes a " + m.type);
}

remote_message make(FuzzedDataProvider& in) {
  remote_message m;
  static const char* const kinds[] = {"hello", "heartbeat", "bye", "result", "verify"};
  m.type = kinds[in.ConsumeIntegralInRange<size_t>(0, 4)];
  m.session = in.ConsumeIntegral<uint64_t>();
  m.batch = in.ConsumeIntegral<uint64_t>();
  if (m.type == "hello") {
    m.credit = in.ConsumeIntegral<uint32_t>();
    m.name = in.ConsumeRandomLengthString(64);
  } else if (m.type == "heartbeat") {
    const double t = in.ConsumeFloatingPoint<double>();
    m.interval = t > 0 ? t : 0;  // encode_heartbeat leaves a non-positive one out
  } else if (m.type == "result") {
    for (size_t n = in.ConsumeIntegralInRange<size_t>(0, 8); n > 0; --n)
      m.verdicts.push_back(
          {in.ConsumeProbability<float>(), in.ConsumeRandomLengthString(16)});
  } else if (m.type == "verify") {
    for (size_t n = in.ConsumeIntegralInRange<size_t>(0, 4); n > 0; --n) {
      adarl::remote_item r;
      for (std::string* s : {&r.item.id, &r.item.task, &r.item.verifier, &r.item.prompt,
                             &r.item.answer, &r.item.tests, &r.completion})
        *s = in.ConsumeRandomLengthString(32);
      r.item.difficulty = in.ConsumeIntegral<uint32_t>();
      m.items.push_back(std::move(r));
    }
  }
  if (m.type != "result" && m.type != "verify") m.session = m.batch = 0;
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    const auto decoded = adarl::decode_remote(rest);
    if (!decoded) {
      FUZZ_CHECK(!decoded.err().message.empty(), "an error has a message");
      return 0;
    }
    check_decoded(*decoded);
    return 0;
  }
  FuzzedDataProvider in(data + 1, size - 1);
  const remote_message sent = make(in);
  const auto got = adarl::decode_remote(encode(sent));
  FUZZ_CHECK(got.ok(), got.ok() ? "" : got.err().message);
  FUZZ_CHECK(same(sent, *got), "a " + sent.type + " does not round-trip");
  return 0;
}
