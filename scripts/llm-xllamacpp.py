#!/usr/bin/env python3
"""scripts/llm-xllamacpp.py: serve a GGUF with xllamacpp (llama.cpp's own HTTP
server, OpenAI-compatible chat with json_schema, /props, /tokenize, in a
prebuilt wheel: no compiler). scripts/llm starts it in the background with
the same settings it gives llama-server; it runs until SIGTERM.

usage: llm-xllamacpp.py MODEL ALIAS HOST PORT CTX SLOTS THREADS [TEMPLATE_FILE]"""
import signal
import sys
import threading

import xllamacpp as xlc


def main(argv):
    if len(argv) not in (7, 8):
        print(__doc__, file=sys.stderr)
        return 2
    model, alias, host, port, ctx, slots, threads = argv[:7]
    p = xlc.CommonParams()
    p.model.path = model
    p.model_alias = {alias}  # a set of names; a str would become its letters
    p.hostnames = [host]
    p.port = int(port)
    p.n_ctx = int(ctx)
    p.n_parallel = int(slots)
    p.cpuparams.n_threads = int(threads)
    p.cpuparams_batch.n_threads = int(threads)
    p.use_jinja = True
    p.ui = False
    p.endpoint_props = True
    if len(argv) == 8:
        with open(argv[7], encoding="utf-8") as f:
            p.chat_template = f.read()
    server = xlc.Server(p)  # returns once the model is loaded and listening
    print(f"llm-xllamacpp: serving {model} as {alias} on {server.listening_address}", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    while not done.wait(1):  # signals may land on a server thread: poll
        pass
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
