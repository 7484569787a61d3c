#!/usr/bin/python3
"""adarl's chat formats against the models' own Jinja templates.

    hf_chat_template.py ADARL MAKE_TINY_HF WORK_DIR

For each tokenizer_config.json below (the real Qwen3 one when the npm cache has it, a
Qwen2.5-Math-style ChatML template with a default system turn, a Llama 3 template), the
prompt `adarl model tokenize DIR --chat` feeds the model, decoded back with --decode,
must be the text the template renders with jinja2 as transformers' apply_chat_template
does (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, add_generation_prompt).
Exits 0 when every case agrees, 1 when one differs, 77 where jinja2 is missing.
"""
import json
import os
import shutil
import subprocess
import sys

try:
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment
except ImportError:
    print("hf_chat_template: skipped: /usr/bin/python3 has no jinja2 (apt-get install python3-jinja2)")
    sys.exit(77)

QWEN25_MATH = (
    "{%- if messages[0]['role'] == 'system' %}"
    "{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}"
    "{%- else %}"
    "{{- '<|im_start|>system\\nPlease reason step by step, and put your final answer within \\\\boxed{}.<|im_end|>\\n' }}"
    "{%- endif %}\n"
    "{%- for message in messages %}\n"
    "    {%- if (message.role == \"user\") or (message.role == \"system\" and not loop.first) %}\n"
    "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
    "    {%- endif %}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n    {{- '<|im_start|>assistant\\n' }}\n{%- endif %}\n")

LLAMA3 = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'"
    "+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
    "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}")

PROMPTS = ["Compute: 12*(3+4). Let's think step by step and output the final answer within \\boxed{}.",
           "  reverse: abc  "]


def render(template, config, system, user):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = lambda x, **kw: json.dumps(x, **kw)
    env.globals["raise_exception"] = lambda m: (_ for _ in ()).throw(Exception(m))
    messages = ([{"role": "system", "content": system}] if system else []) + \
        [{"role": "user", "content": user}]
    token = lambda k: (config.get(k) or {}).get("content") if isinstance(config.get(k), dict) else config.get(k)
    return env.from_string(template).render(messages=messages, add_generation_prompt=True,
                                            bos_token=token("bos_token") or "",
                                            eos_token=token("eos_token") or "")


def adarl_text(adarl, d, user, system):
    args = [adarl, "model", "tokenize", d, "--chat"]
    if system is not None:
        args += ["--system-prompt", system]
    ids = subprocess.run(args, input=user + "\n", capture_output=True, text=True, check=True).stdout
    out = subprocess.run([adarl, "model", "tokenize", d, "--decode"], input=ids,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    adarl, make, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cases = []
    real = os.path.join(work, "qwen3")
    if subprocess.run([make, real], capture_output=True, text=True, check=True).stdout.strip() == "qwen3":
        cases.append(("qwen3", real))
    else:
        print("hf_chat_template: the Qwen3 tokenizer is not in the npm cache: its case is left out")
    small = os.path.join(work, "small")
    subprocess.run([make, small, "--small-tokenizer"], check=True, capture_output=True)
    math = os.path.join(work, "qwen25-math")
    shutil.copytree(small, math)
    cfg = json.load(open(os.path.join(math, "tokenizer_config.json")))
    cfg["chat_template"] = QWEN25_MATH
    json.dump(cfg, open(os.path.join(math, "tokenizer_config.json"), "w"))
    cases += [("small", small), ("qwen2.5-math", math)]
    llama = os.path.join(work, "llama3")
    shutil.copytree(small, llama)
    tok = json.load(open(os.path.join(llama, "tokenizer.json")))
    next_id = max(a["id"] for a in tok["added_tokens"]) + 1
    for i, t in enumerate(["<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]):
        tok["added_tokens"].append({"id": next_id + i, "content": t, "single_word": False, "lstrip": False,
                                    "rstrip": False, "normalized": False, "special": True})
    json.dump(tok, open(os.path.join(llama, "tokenizer.json"), "w"))
    json.dump({"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>", "chat_template": LLAMA3},
              open(os.path.join(llama, "tokenizer_config.json"), "w"))
    cases.append(("llama3", llama))
    failures = 0
    for name, d in cases:
        config = json.load(open(os.path.join(d, "tokenizer_config.json")))
        for user in PROMPTS:
            for system in (None, "Be terse."):
                want = render(config["chat_template"], config, system, user)
                got = adarl_text(adarl, d, user, system)
                ok = got == want
                failures += not ok
                print(f"hf_chat_template: {name}, system {system!r}: " + ("same" if ok else
                      f"DIFFERENT\n  jinja2: {want!r}\n  adarl:  {got!r}"))
    print(f"hf_chat_template: {len(cases)} templates, " +
          ("every prompt renders as the template does" if not failures else f"{failures} differ"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
