#pragma once
// The `adarl` subcommands: one registration function each, called by cli/main.cpp.

namespace CLI {
class App;
}

namespace adarl {

/// Each function registers one `adarl` subcommand on the app. When the subcommand runs,
/// its exit status (0 success, 2 bad input, 1 other failure) is written to exit_code.

/// `adarl replay`: a strategy over recorded reward streams (cli/replay_command.cpp).
void add_replay_command(CLI::App& app, int& exit_code);
/// `adarl simulate`: strategies on a simulated policy (cli/simulate_command.cpp).
void add_simulate_command(CLI::App& app, int& exit_code);
/// `adarl tasks export|check|verify`: built-in suites as JSONL, dataset checks, scoring
/// completions (cli/tasks_command.cpp). Returns the `tasks` subcommand.
CLI::App* add_tasks_command(CLI::App& app, int& exit_code);
/// `adarl tasks select`: the paper's prompt selection (cli/tasks_select_command.cpp; links
/// LibTorch, in adarl_torch_jobs).
void add_tasks_select_command(CLI::App& tasks, int& exit_code);
/// `adarl sft`: supervised warm start of the built-in policy (cli/sft_command.cpp;
/// links LibTorch, in adarl_torch_jobs).
void add_sft_command(CLI::App& app, int& exit_code);
/// `adarl run`: the actor pipeline end to end (cli/run_command.cpp; links LibTorch).
void add_run_command(CLI::App& app, int& exit_code);
/// `adarl compare`: strategies x seeds at one sample budget (cli/compare_command.cpp;
/// links LibTorch).
void add_compare_command(CLI::App& app, int& exit_code);
/// `adarl model inspect|tokenize`: a Hugging Face checkpoint as adarl sees it, and its
/// tokenizer (cli/model_command.cpp; torch-free). Returns the `model` subcommand.
CLI::App* add_model_command(CLI::App& app, int& exit_code);
/// `adarl model score`: per-token log-probs of completions under a checkpoint
/// (cli/model_score_command.cpp; links LibTorch, in adarl_torch_jobs).
void add_model_score_command(CLI::App& model, int& exit_code);
/// `adarl report`: the report page of a run or a comparison (cli/report_command.cpp).
void add_report_command(CLI::App& app, int& exit_code);
/// `adarl worker verify|keygen`: a remote verifier worker, CURVE keys
/// (cli/worker_command.cpp). Returns the `worker` subcommand.
CLI::App* add_worker_command(CLI::App& app, int& exit_code);
/// `adarl worker generate`: a remote generator worker (cli/worker_generate_command.cpp;
/// links LibTorch for the transformer's engine).
void add_worker_generate_command(CLI::App& worker, int& exit_code);
/// `adarl worker learn`: a learner rank > 0 of a replicated learner
/// (cli/worker_learn_command.cpp; links LibTorch).
void add_worker_learn_command(CLI::App& worker, int& exit_code);

}  // namespace adarl
