#include "pipelines/pipeline_builder.hpp"

#include <utility>

#include "tokenizers/tokenizer.hpp"

namespace adarl {

namespace {

/// A verifier whose verdict is a caller's callable.
class rule_verifier final : public verifier {
 public:
  rule_verifier(std::string name, reward_rule rule)
      : name_(std::move(name)), rule_(std::move(rule)) {}
  std::string_view name() const override { return name_; }
  verdict verify(const task_item& item, std::string_view completion) const override {
    return rule_(item, completion);
  }

 private:
  std::string name_;
  reward_rule rule_;
};

}  // namespace

std::unique_ptr<verifier> make_verifier(std::string name, reward_rule rule) {
  return std::make_unique<rule_verifier>(std::move(name), std::move(rule));
}

pipeline_builder::pipeline_builder(pipeline_config config)
    : config_(std::move(config)),
      registry_(std::make_shared<verifier_registry>(verifier_registry::with_builtins())) {}

pipeline_builder& pipeline_builder::tasks(task_source source) {
  source_ = std::move(source);
  return *this;
}

pipeline_builder& pipeline_builder::prompts(prompt_table_ptr table) {
  table_ = std::move(table);
  return *this;
}

pipeline_builder& pipeline_builder::verifier(std::unique_ptr<adarl::verifier> v) {
  registry_->add(std::move(v));
  return *this;
}

pipeline_builder& pipeline_builder::verifier(std::string name, reward_rule rule) {
  return verifier(make_verifier(std::move(name), std::move(rule)));
}

pipeline_builder& pipeline_builder::verifier_actors(verifier_factory factory) {
  components_.verifier_actors = std::move(factory);
  return *this;
}

pipeline_builder& pipeline_builder::engines(engine_factories factories) {
  components_.engines = std::move(factories);
  return *this;
}

pipeline_builder& pipeline_builder::observer(std::shared_ptr<run_observer> observer) {
  options_.observer = std::move(observer);
  return *this;
}

pipeline_builder& pipeline_builder::options(run_options options) {
  if (!options.observer) options.observer = options_.observer;
  options_ = std::move(options);
  return *this;
}

result<prompt_table_ptr> pipeline_builder::build_prompts() const {
  if (table_) return table_;
  auto items = source_ ? source_(config_) : config_tasks(config_, registry_.get());
  if (!items) return items.err();
  if (items->train.empty()) return error{"tasks: no training prompts"};
  for (const auto* part : {&items->train, &items->held_out})
    for (const auto& item : *part)
      if (auto v = registry_->find(item.verifier); !v)
        return error{"task \"" + item.id + "\": " + v.err().message};
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  if (!tok) return tok.err();
  const auto format = parse_prompt_format(config_.tasks.prompt_format);
  if (!format) return error{"tasks.prompt_format: unknown format \"" + config_.tasks.prompt_format + "\""};
  auto codec = std::make_shared<const tokenizer>(std::move(*tok));
  auto table = build_prompt_table(items->train, items->held_out,
                                  std::shared_ptr<const text_codec>(codec), *format);
  if (!table) return table.err();
  return std::make_shared<const prompt_table>(std::move(*table));
}

result<std::unique_ptr<pipeline_handle>> pipeline_builder::start(caf::actor_system& sys) const {
  auto prompts = build_prompts();
  if (!prompts) return prompts.err();
  auto parts = components_;
  parts.verifiers = registry_;
  return start_pipeline(sys, config_, std::move(*prompts), std::move(parts), options_);
}

}  // namespace adarl
