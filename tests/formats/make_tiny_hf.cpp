// make_tiny_hf DIR [options]: writes a tiny random Hugging Face checkpoint (config.json,
// model.safetensors, generation_config.json, tokenizer files) for the command-line tests
// and the Python reference check. Options:
//   --llama            model_type llama (default qwen2)
//   --qwen3            model_type qwen3: q/k norms, no biases unless --attention-bias
//   --small-tokenizer  the small byte-level tokenizer even when the npm cache has Qwen3's
//   --f32              float32 weights (default bfloat16)
//   --untied           an lm_head of its own
//   --attention-bias   llama, qwen3: q/k/v/o biases (qwen2 has q/k/v biases always)
//   --head-dim N       config.json's head_dim (default hidden / heads, not written)
//   --hidden N --layers N --heads N --kv-heads N --intermediate N --vocab N --seed N
//   --scale X          standard deviation of the random weights (default 0.02)
//   --rope-scaling JSON  config.json's rope_scaling (default null)
// Prints the tokenizer it used ("qwen3" or "small").
#include <cstdio>
#include <cstring>
#include <string>

#include "tests/formats/tiny_hf.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_tiny_hf DIR [--llama] [--small-tokenizer] [--f32] ...\n");
    return 2;
  }
  adarl::test::tiny_hf_spec s;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "make_tiny_hf: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--llama") s.model_type = "llama";
    else if (a == "--qwen3") s.model_type = "qwen3";
    else if (a == "--head-dim") s.head_dim = std::stoll(next());
    else if (a == "--small-tokenizer") s.real_tokenizer = false;
    else if (a == "--f32") s.dtype = adarl::tensor_dtype::f32;
    else if (a == "--untied") s.tied = false;
    else if (a == "--attention-bias") s.attention_bias = true;
    else if (a == "--hidden") s.hidden = std::stoll(next());
    else if (a == "--layers") s.layers = std::stoll(next());
    else if (a == "--heads") s.heads = std::stoll(next());
    else if (a == "--kv-heads") s.kv_heads = std::stoll(next());
    else if (a == "--intermediate") s.intermediate = std::stoll(next());
    else if (a == "--vocab") s.vocab = std::stoll(next());
    else if (a == "--seed") s.seed = std::stoull(next());
    else if (a == "--scale") s.scale = std::stof(next());
    else if (a == "--rope-scaling") s.rope_scaling = next();
    else {
      std::fprintf(stderr, "make_tiny_hf: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  try {
    adarl::test::write_tiny_hf(argv[1], s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_tiny_hf: %s\n", e.what());
    return 1;
  }
  const bool real = s.real_tokenizer && !adarl::test::qwen3_tokenizer_dir().empty();
  std::printf("%s\n", real ? "qwen3" : "small");
  return 0;
}
