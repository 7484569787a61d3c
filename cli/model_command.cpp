// `adarl model inspect|tokenize`: what adarl makes of a Hugging Face checkpoint directory
// (architecture, parameters, dtypes, tokenizer, chat format, what it cannot run and why),
// and its tokenizer on the command line. Torch-free: headers and tokenizer files only.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "formats/hf_config.hpp"
#include "formats/hf_weights_check.hpp"
#include "formats/safetensors_checkpoint.hpp"
#include "tokenizers/bpe/hf_text.hpp"

namespace adarl {
namespace {

struct model_options {
  std::string dir;
  std::string chat_template = "auto";
  std::string system_prompt = "auto";
  bool chat = false, decode = false, skip_special = false;
};

// "1,543,714,304".
std::string grouped(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

int inspect(const model_options& o) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(o.dir)) {
    std::cerr << "adarl model inspect: " << o.dir << ": not a directory\n";
    return 2;
  }
  std::cout << "directory: " << o.dir << "\n";
  std::string why;  // the first reason adarl cannot run it
  auto text = read_text_file(o.dir + "/config.json");
  std::optional<hf_config> config;
  if (!text) {
    why = text.err().message;
  } else if (auto c = parse_hf_config(*text, o.dir + "/config.json"); !c) {
    why = c.err().message;
    // Say what it is, even when it is not supported.
    const auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_object())
      std::cout << "model_type: " << j.value("model_type", std::string("?")) << "\n";
  } else {
    config = *c;
    std::cout << "architecture: " << c->summary() << "\n"
              << "parameters: " << grouped(c->parameter_count()) << " (from config.json)\n";
  }
  if (auto ckpt = safetensors_checkpoint::open(o.dir); !ckpt) {
    if (why.empty()) why = ckpt.err().message;
    std::cout << "weights: " << ckpt.err().message << "\n";
  } else {
    hf_weights_tally tally;
    std::string problem;
    if (config) problem = hf_weights_problem(*ckpt, *config, &tally);
    std::cout << "weights: " << ckpt->size() << " tensors in " << ckpt->shard_count()
              << " file(s), " << grouped(tally.numel) << " values; dtypes";
    for (const auto& [name, count] : tally.dtypes) std::cout << " " << name << " x" << count;
    std::cout << "\n";
    if (why.empty() && !problem.empty()) why = problem;
  }
  hf_text_options t;
  t.chat = parse_chat_template_choice(o.chat_template).value_or(chat_template_choice::automatic);
  t.system_prompt = o.system_prompt;
  if (auto codec = hf_text_codec::open(o.dir, t); !codec) {
    std::cout << "tokenizer: " << codec.err().message << "\n";
    if (why.empty()) why = codec.err().message;
  } else {
    const auto& c = **codec;
    const auto& tok = c.tokenizer();
    std::cout << "tokenizer: " << grouped(tok.vocab_size()) << " ids; end ids";
    for (int32_t id : c.end_ids())
      std::cout << " " << id << " " << tok.id_to_token(id).value_or("?");
    std::cout << "; pad " << c.pad_id() << " " << tok.id_to_token(c.pad_id()).value_or("?")
              << "\n";
    if (config && tok.vocab_size() > config->vocab_size && why.empty())
      why = "the tokenizer has " + std::to_string(tok.vocab_size()) +
            " ids, more than the model's vocab_size " + std::to_string(config->vocab_size);
    const auto& f = c.format();
    std::cout << "chat format: " << chat_template_name(f.kind) << ", system turn: "
              << (f.system ? nlohmann::json(*f.system).dump() : std::string("none")) << "\n";
  }
  if (why.empty()) {
    std::cout << "supported: yes (model.kind: hf, model.path: " << o.dir << ")\n";
    return 0;
  }
  std::cout << "supported: no: " << why << "\n";
  return 1;
}

int tokenize(const model_options& o) {
  hf_text_options t;
  auto choice = parse_chat_template_choice(o.chat_template);
  if (!choice) {
    std::cerr << "adarl model tokenize: --chat-template: expected auto, none, chatml or llama3, got \""
              << o.chat_template << "\"\n";
    return 2;
  }
  t.chat = *choice;
  t.system_prompt = o.system_prompt;
  auto codec = hf_text_codec::open(o.dir, t);
  if (!codec) {
    std::cerr << "adarl model tokenize: " << codec.err().message << "\n";
    return 2;
  }
  const auto& tok = (*codec)->tokenizer();
  size_t line_no = 0;
  for (std::string line; std::getline(std::cin, line);) {
    ++line_no;
    if (o.decode) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      std::vector<int32_t> ids;
      bool ok = j.is_array();
      for (const auto& x : j) ok = ok && x.is_number_integer(), ids.push_back(ok ? x.get<int32_t>() : 0);
      if (!ok) {
        std::cerr << "adarl model tokenize: stdin:" << line_no
                  << ": expected a JSON array of token ids\n";
        return 2;
      }
      std::cout << nlohmann::json(tok.decode(ids, o.skip_special)).dump() << "\n";
      continue;
    }
    auto ids = o.chat ? (*codec)->encode_prompt(line, "stdin:" + std::to_string(line_no))
                      : tok.encode(line, /*add_special_tokens=*/true);
    if (!ids) {
      std::cerr << "adarl model tokenize: stdin:" << line_no << ": " << ids.err().message << "\n";
      return 2;
    }
    std::cout << nlohmann::json(*ids).dump() << "\n";
  }
  return 0;
}

}  // namespace

CLI::App* add_model_command(CLI::App& app, int& exit_code) {
  auto* model = app.add_subcommand("model", "what adarl makes of a Hugging Face checkpoint");
  model->require_subcommand(1);
  auto o = std::make_shared<model_options>();
  auto* ins = model->add_subcommand(
      "inspect", "architecture, parameters, dtypes, tokenizer, chat format, and whether adarl "
                 "can run it (exit 1 with the reason when not)");
  ins->add_option("DIR", o->dir, "the checkpoint directory")->required();
  ins->add_option("--chat-template", o->chat_template, "auto, none, chatml or llama3");
  ins->add_option("--system-prompt", o->system_prompt, "auto, \"\" (none) or the text");
  ins->callback([o, &exit_code] { exit_code = inspect(*o); });
  auto* tok = model->add_subcommand(
      "tokenize", "one JSON array of ids per line of stdin (--decode: one JSON string per "
                  "array)");
  tok->add_option("DIR", o->dir, "the checkpoint directory (tokenizer.json)")->required();
  tok->add_flag("--decode", o->decode, "read arrays of ids, print their text");
  tok->add_flag("--skip-special", o->skip_special, "--decode: leave special tokens out");
  tok->add_flag("--chat", o->chat,
                "each line is a user turn: encode the prompt a run feeds the model");
  tok->add_option("--chat-template", o->chat_template, "auto, none, chatml or llama3 (--chat)");
  tok->add_option("--system-prompt", o->system_prompt, "auto, \"\" (none) or the text (--chat)");
  tok->callback([o, &exit_code] { exit_code = tokenize(*o); });
  return model;
}

}  // namespace adarl
