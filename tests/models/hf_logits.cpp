// hf_logits DIR TOKENS.json OUT: adarl's logits of token sequences under the checkpoint
// DIR, for the Python reference check (tests/models/hf_reference.py).
// TOKENS.json is a list of id lists. Writes OUT.forward.f32 (the learner's padded
// forward over all sequences at once) and OUT.decode.f32 (the decoder's slot path:
// prompts prefilled packed, then one token per step), each the rows of every position
// of every sequence in order, float32 [positions, vocab]; and OUT.json with the vocab
// size and the lengths.
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/arch/logprobs.hpp"
#include "models/weights/hf_policy.hpp"

using namespace adarl;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: hf_logits DIR TOKENS.json OUT\n");
    return 2;
  }
  std::ifstream in(argv[2]);
  const auto seqs = nlohmann::json::parse(in).get<std::vector<std::vector<int32_t>>>();
  int32_t longest = 2;
  for (const auto& s : seqs) longest = std::max<int32_t>(longest, int32_t(s.size()));
  hf_policy_config c;
  c.path = argv[1];
  c.max_len = longest;
  auto p = build_hf_policy(c, torch::kCPU);
  if (!p) {
    std::fprintf(stderr, "hf_logits: %s\n", p.err().message.c_str());
    return 1;
  }
  auto& m = p->model;
  c10::InferenceMode guard;
  auto [tokens, mask] = left_pad(seqs, 0);
  auto full = m->forward(tokens, mask);  // [B, L, V]
  const int64_t len = tokens.size(1), vocab = full.size(2);
  std::vector<torch::Tensor> forward_rows, decode_rows;
  for (size_t i = 0; i < seqs.size(); ++i)
    forward_rows.push_back(full[int64_t(i)].narrow(0, len - int64_t(seqs[i].size()),
                                                  int64_t(seqs[i].size())));
  // The decoder's path: every sequence in its own slot, the first half of each prefilled
  // in one packed pass, then one token per sequence per pass.
  auto cache = m->make_slot_cache(int64_t(seqs.size()));
  std::vector<std::vector<torch::Tensor>> per_seq(seqs.size());
  std::vector<size_t> done(seqs.size(), 0);
  for (bool first = true;; first = false) {
    std::vector<int64_t> t, s, pos, wanted;
    std::vector<size_t> owner;
    for (size_t i = 0; i < seqs.size(); ++i) {
      const size_t take = first ? std::max<size_t>(1, seqs[i].size() / 2)
                                : (done[i] < seqs[i].size() ? 1 : 0);
      for (size_t k = done[i]; k < done[i] + take; ++k) {
        t.push_back(seqs[i][k]);
        s.push_back(int64_t(i));
        pos.push_back(int64_t(k));
        wanted.push_back(int64_t(t.size()) - 1);
        owner.push_back(i);
      }
      done[i] += take;
    }
    if (t.empty()) break;
    auto as = [](std::vector<int64_t>& v) { return torch::tensor(v, torch::kLong); };
    auto logits = m->decode_slots(as(t), as(s), as(pos), as(wanted), cache, false);
    for (size_t w = 0; w < owner.size(); ++w) per_seq[owner[w]].push_back(logits[int64_t(w)]);
  }
  for (auto& rows : per_seq) decode_rows.push_back(torch::stack(rows));
  const std::string out = argv[3];
  for (const auto& [suffix, rows] :
       {std::pair{".forward.f32", &forward_rows}, std::pair{".decode.f32", &decode_rows}}) {
    auto all = torch::cat(*rows).to(torch::kFloat).contiguous();
    std::ofstream f(out + suffix, std::ios::binary);
    f.write(reinterpret_cast<const char*>(all.data_ptr<float>()),
            std::streamsize(all.numel() * 4));
  }
  nlohmann::json lengths = nlohmann::json::array();
  for (const auto& s : seqs) lengths.push_back(s.size());
  std::ofstream(out + ".json") << nlohmann::json{{"vocab", vocab}, {"lengths", lengths}}.dump();
  std::printf("hf_logits: %zu sequences, %lld positions, vocab %lld\n", seqs.size(),
              static_cast<long long>(torch::cat(forward_rows).size(0)),
              static_cast<long long>(vocab));
  return 0;
}
