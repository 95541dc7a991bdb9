#!/usr/bin/env python3
"""scripts/llm-gguf.py FILE: print a GGUF file's metadata that tells whether it
is an instruct (chat) model, one `key=value` line each, and exit 0 only when it
carries a chat template (tokenizer.chat_template). scripts/llm runs it on the
joined model before serving it: a base model (no template) echoes the prompt
and runs to max_tokens, which no test should have to find out. Standard
library only; reads the header, never the tensors."""
import struct
import sys

TYPES = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
SHOWN = ("general.name", "general.architecture", "general.finetune", "general.type",
         "general.file_type", "general.license", "general.size_label",
         "tokenizer.ggml.eos_token_id", "context_length")


def read(f, fmt):
    return struct.unpack(fmt, f.read(struct.calcsize(fmt)))[0]


def string(f):
    return f.read(read(f, "<Q")).decode("utf-8", "replace")


def value(f, t):
    if t == 8:
        return string(f)
    if t == 9:
        inner, n = read(f, "<I"), read(f, "<Q")
        items = [value(f, inner) for _ in range(n)]
        return f"<array of {n}>" if n > 8 else items
    if t in TYPES:
        return read(f, TYPES[t])
    raise ValueError(f"unknown GGUF value type {t}")


def main(path):
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            print(f"{path}: not a GGUF file (no GGUF magic)", file=sys.stderr)
            return 2
        version = read(f, "<I")
        _tensors, kvs = read(f, "<Q"), read(f, "<Q")
        meta = {}
        for _ in range(kvs):
            key = string(f)
            meta[key] = value(f, read(f, "<I"))
    print(f"gguf.version={version}")
    for k, v in meta.items():
        if k in SHOWN or k.endswith(".context_length"):
            print(f"{k}={v}")
    tpl = meta.get("tokenizer.chat_template")
    if not isinstance(tpl, str) or not tpl.strip():
        print(f"{path}: no tokenizer.chat_template: a base model, not an instruct model", file=sys.stderr)
        return 1
    end = "<|im_end|>" if "<|im_end|>" in tpl else ("<end_of_turn>" if "<end_of_turn>" in tpl else "?")
    print(f"tokenizer.chat_template=present ({len(tpl)} chars, turn end {end})")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: scripts/llm-gguf.py FILE.gguf", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
