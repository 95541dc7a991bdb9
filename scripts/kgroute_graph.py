"""scripts/kgroute_graph.py - the offline graph of a kgroute batch as JSON lines.

    import json, kgroute_graph
    for line in kgroute_graph.graph_lines("reports/batch-1"):
        record = json.loads(line)

A batch keeps its graph once, as graph/parts/<doc_id>.jsonl.gz: one
gzip-compressed file of JSON lines per document (its document record,
sections, entities and relations). graph_lines() yields the lines of every
part in doc_id order, the lines `kgroute export BATCH` prints. Batches of
older versions read alike:

- a part graph/parts/<doc_id>.json (a JSON object, gzip-compressed or
  plain) gives its `jsonl_lines` string's lines, then its `jsonl` list's
  objects, one line each; where a document has both a .jsonl.gz and a
  .json part, the .jsonl.gz one is read;
- a batch with no graph/parts folder but a graph/graph.jsonl gives that
  file's lines.

The scripts live beside this file and import it by name (a script's own
folder is first on sys.path).
"""

import gzip
import json
import os

PARTS_DIR = "parts"
PART_ENDING = ".jsonl.gz"
OLD_PART_ENDING = ".json"
OLD_GRAPH_JSONL = "graph.jsonl"


def find_graph(path):
    """Where the graph of `path` is: the graph folder (holding parts/ or an
    older graph.jsonl) when `path` is a batch folder or its graph folder,
    `path` itself when it is a file of JSON lines; None when there is no
    graph (e.g. a batch written to Neo4j). A pathlib.Path does too."""
    path = os.fspath(path)
    if os.path.isfile(path):
        return path
    for cand in (os.path.join(path, "graph"), path):
        if os.path.isdir(os.path.join(cand, PARTS_DIR)) or os.path.isfile(
                os.path.join(cand, OLD_GRAPH_JSONL)):
            return cand
    return None


def has_graph(path):
    """Whether `path` (a batch folder, its graph folder or a JSON lines
    file) holds a graph to read."""
    return find_graph(path) is not None


def part_files(graph_dir):
    """Every part of the graph folder as (doc_id, file), in doc_id order;
    where a document has both forms, the .jsonl.gz one."""
    parts = os.path.join(graph_dir, PARTS_DIR)
    by_doc = {}
    for name in os.listdir(parts):
        if name.startswith("."):
            continue  # a part being written (temp file)
        if name.endswith(PART_ENDING):
            doc_id = name[:-len(PART_ENDING)]
        elif name.endswith(OLD_PART_ENDING):
            doc_id = name[:-len(OLD_PART_ENDING)]
            if doc_id in by_doc:
                continue
        else:
            continue
        by_doc[doc_id] = os.path.join(parts, name)
    return [(d, by_doc[d]) for d in sorted(by_doc, key=lambda d: d.encode("utf-8"))]


def _text_lines(f):
    for line in f:
        line = line.rstrip("\r\n")
        if line:
            yield line


def _old_part_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    part = json.loads(data.decode("utf-8"))
    for line in (part.get("jsonl_lines") or "").splitlines():
        if line:
            yield line
    for v in part.get("jsonl") or []:
        yield json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def part_lines(path):
    """The lines of one part file (either form)."""
    if path.endswith(OLD_PART_ENDING):
        yield from _old_part_lines(path)
        return
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        yield from _text_lines(f)


def graph_lines(batch_dir):
    """Every line of the graph of `batch_dir` (a batch folder; its graph
    folder or a JSON lines file, plain or gzip-compressed, also do), as a
    string without its line break, document by document in doc_id order,
    streamed. Raises FileNotFoundError, when called, if there is no graph."""
    where = find_graph(batch_dir)
    if where is None:
        raise FileNotFoundError(
            "%s: no graph (no graph/parts/ nor graph/graph.jsonl; a batch written "
            "to Neo4j keeps its graph there)" % batch_dir)
    return _lines_of(where)


def _lines_of(where):
    if os.path.isfile(where):
        opener = gzip.open if where.endswith(".gz") else open
        with opener(where, "rt", encoding="utf-8", newline="") as f:
            yield from _text_lines(f)
        return
    if not os.path.isdir(os.path.join(where, PARTS_DIR)):
        with open(os.path.join(where, OLD_GRAPH_JSONL), encoding="utf-8", newline="") as f:
            yield from _text_lines(f)
        return
    for _, path in part_files(where):
        yield from part_lines(path)
