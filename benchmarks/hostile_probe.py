"""Hostile probe for issue 43 (``python benchmarks/hostile_probe.py [class ...]``; classes:
cbor/json, quadratic, writers, arrow, labels; about 10 minutes on 2 cores) classes 1-4: each case in a child process under an address
limit and a timeout. Outcome 'clean': the work finished, or was refused with one message
(InputError / ValueError / WriteError / OutputExistsError, CLI exit 2 without a traceback);
'failed': a timeout, a memory error, a crash or an unexpected exception."""
import json, os, subprocess, sys, textwrap, time, resource
import tempfile
from pathlib import Path
ROOT = str(Path(__file__).resolve().parents[1])
BASE = os.environ.get("PROBE_DIR") or tempfile.mkdtemp(prefix="tiedrank-probe-")
WORK = f"{BASE}/work"
LIMIT = 3 << 30
CLEAN_ERRORS = ("InputError", "ValueError", "WriteError", "OutputExistsError",
                "RemediedValueError", "InvalidParameterError", "FileNotFoundError",
                "IsADirectoryError", "NotADirectoryError", "PermissionError")

HEAD = """
import json, os, sys, time, io
import numpy as np, pandas as pd
def done(outcome): print("PROBE " + json.dumps(outcome)); sys.stdout.flush()
try:
"""
TAIL = """
    done({"ok": True, "note": str(locals().get("note", ""))[:100]})
except BaseException as e:
    done({"ok": False, "type": type(e).__name__, "msg": str(e)[:160]})
"""

def limit():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

def run_py(body, timeout=40, cwd=None):
    cwd = cwd or WORK
    code = HEAD + textwrap.indent(textwrap.dedent(body), "    ") + TAIL
    env = dict(os.environ, PYTHONPATH=ROOT)
    t = time.time()
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           timeout=timeout, preexec_fn=limit, cwd=cwd)
    except subprocess.TimeoutExpired:
        return {"ok": False, "type": "TIMEOUT", "secs": timeout}
    lines = [l for l in p.stdout.splitlines() if l.startswith("PROBE ")]
    if not lines:
        return {"ok": False, "type": f"CRASH rc={p.returncode}", "msg": p.stderr[-200:]}
    out = json.loads(lines[-1][6:]); out["secs"] = round(time.time() - t, 1)
    return out

def run_cli(args, timeout=40, cwd=None, shell=None):
    env = dict(os.environ, PYTHONPATH=ROOT)
    cwd = cwd or WORK
    t = time.time()
    cmd = shell if shell else [sys.executable, "-m", "tiedrank", *args]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                           preexec_fn=limit, cwd=cwd, shell=bool(shell))
    except subprocess.TimeoutExpired:
        return {"ok": False, "type": "TIMEOUT"}
    err = p.stderr.strip()
    if "Traceback" in err or "internal error" in err:
        return {"ok": False, "type": "TRACEBACK", "msg": err[-200:]}
    return {"ok": p.returncode == 0, "type": f"exit {p.returncode}", "msg": err[-400:],
            "secs": round(time.time() - t, 1)}

CASES = []
def case(cls, name, kind="py", expect_ok=None, **kw):
    def add(body):
        CASES.append((cls, name, kind, body, expect_ok, kw)); return body
    return add

# ---------------- class 1a: CBOR / JSON constructions ---------------------------------------
LZ = "import cbor2, lz4.frame as F\nfrom tiedrank import read_run, read_qrels\n"
def cbor(name, expr):
    case("cbor/json", name)(LZ + f"raw = {expr}\nr = read_run(raw)\nnote = len(r.frame)\n")
W = "b'\\xa1\\x61q\\xa1\\x61d'"
for n in (5, 20, 40, 60):
    cbor(f"shared chain {n} under a doc",
         f"F.compress({W} + cbor2.dumps((lambda v: [v] and __import__('functools').reduce(lambda a, _: [a, a], range({n}), [1.0]))(0), value_sharing=True))")
cbor("shared chain as query map", "F.compress(b'\\xa1\\x61q' + cbor2.dumps((lambda d: {'a': d, 'b': d})({'x': 1.0}), value_sharing=True))")
cbor("shared whole object (tag at top)", "F.compress(cbor2.dumps({'q': {'d': 1.0}}, value_sharing=True))")
cbor("cycle", "F.compress(" + W + " + cbor2.dumps((lambda l: (l.append(l), l)[1])([]), value_sharing=True))")
cbor("string refs 1000 x 100k", "F.compress(b'\\xa1\\x61q' + cbor2.dumps({f'd{i}': 'a'*100000 for i in range(1000)}, string_referencing=True))")
cbor("deep arrays 300", f"F.compress({W} + b'\\x81'*300 + b'\\x01')")
cbor("deep arrays 100000", f"F.compress({W} + b'\\x81'*100000 + b'\\x01')")
cbor("huge byte length", f"F.compress({W} + b'\\x5b\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff')")
cbor("huge array length", f"F.compress({W} + b'\\x9b\\x00\\x00\\x00\\xff\\xff\\xff\\xff\\xff')")
cbor("huge map length", "F.compress(b'\\xbb\\x00\\x00\\x00\\xff\\xff\\xff\\xff\\xff')")
cbor("huge text length", f"F.compress({W} + b'\\x7b\\x00\\x00\\x00\\x0f\\xff\\xff\\xff\\xff')")
cbor("indefinite array unterminated", f"F.compress({W} + b'\\x9f' + b'\\x01'*1000)")
cbor("indefinite map of 100k", "F.compress(b'\\xa1\\x61q\\xbf' + b''.join(cbor2.dumps(f'd{i}') + b'\\xf9\\x3c\\x00' for i in range(100000)) + b'\\xff')")
cbor("bignum 100k digits", f"F.compress({W} + cbor2.dumps(10**100000))")
cbor("decimal huge exponent", f"F.compress({W} + cbor2.dumps(__import__('decimal').Decimal('1e999999999')))")
cbor("fraction", f"F.compress({W} + cbor2.dumps(__import__('fractions').Fraction(1,3)))")
cbor("set tag 258", f"F.compress({W} + cbor2.dumps({{1,2,3}}))")
cbor("datetime tag 1", f"F.compress({W} + cbor2.dumps(__import__('datetime').datetime(2020,1,1,tzinfo=__import__('datetime').timezone.utc)))")
cbor("bad datetime tag 0", f"F.compress({W} + b'\\xc0\\x63abc')")
cbor("regex tag 35", f"F.compress({W} + cbor2.dumps(cbor2.CBORTag(35, '(a+)+$')))")
cbor("mime tag 36", f"F.compress({W} + cbor2.dumps(cbor2.CBORTag(36, 'Content-Type: text/plain\\n\\n' + 'x'*100000)))")
cbor("uuid tag 37 bad", f"F.compress({W} + cbor2.dumps(cbor2.CBORTag(37, b'xx')))")
cbor("unknown tag 999", f"F.compress({W} + cbor2.dumps(cbor2.CBORTag(999, 1)))")
cbor("self-describe 55799", "F.compress(cbor2.dumps(cbor2.CBORTag(55799, {'q': {'d': 1.0}})))")
cbor("NaN and inf scores", "F.compress(cbor2.dumps({'q': {'d': float('nan'), 'e': float('inf')}}))")
cbor("int keys", "F.compress(cbor2.dumps({1: {2: 1.0}}))")
cbor("array key", "F.compress(b'\\xa1\\x81\\x01\\xa1\\x61d\\x01')")
cbor("1e6 duplicate keys", "F.compress(b'\\xa1\\x61q\\xba\\x00\\x0f\\x42\\x40' + (cbor2.dumps('d') + b'\\x01')*1000000)")
cbor("10 nested frames", "(lambda b: [b := F.compress(b) for _ in range(10)][-1])(cbor2.dumps({'q': {'d': 1.0}}))")
cbor("LZ4 bomb 3 GB zeros", "F.compress(b'\\x00' * (1 << 28))")
cbor("JSON depth bomb in lz4", "F.compress(b'{\"q\": ' + b'['*200000 + b']'*200000 + b'}')")
cbor("JSON huge exponent", "F.compress(b'{\"q\": {\"d\": 1e999999}}')")
cbor("JSON 1e6-digit integer", "F.compress(b'{\"q\": {\"d\": ' + b'9'*1000000 + b'}}')")
cbor("JSON duplicate keys", "F.compress(b'{\"q\": {\"d\": 1, \"d\": 2}}')")
cbor("truncated CBOR", f"F.compress({W} + b'\\xfb\\x00')")
case("cbor/json", "ranx fixture still reads")(LZ + f"r = read_run({ROOT + '/tests/io/ranx_fixtures/run.lz4'!r}); note = len(r.frame)\n")
case("cbor/json", "CLI on the 40 chain", kind="cli_file")("chain40")

# ---------------- class 1b: other quadratic statistics ---------------------------------------
TIED = """
n = N
docs = [f"d{i}" for i in range(n)]
tied = pd.DataFrame({"query": "q", "doc": docs, "score": 1.0})
ordered = pd.DataFrame({"query": "q", "doc": docs, "score": -np.arange(n, dtype=float)})
qrels = pd.DataFrame({"query": "q", "doc": docs[::7], "relevance": 1})
"""
def quad(name, body, n=20000, timeout=60):
    case("quadratic", name, timeout=timeout)(TIED.replace("N", str(n)) + body)
quad("RBO tied vs strict 20k", "from tiedrank.stats import rank_biased_overlap as r; r(tied, ordered)")
quad("RBO tied vs tied 20k p=0.99", "from tiedrank.stats import rank_biased_overlap as r; r(tied, tied.assign(doc=docs[::-1]), p=0.99)")
quad("RBO disjoint 20k", "from tiedrank.stats import rank_biased_overlap as r; r(tied, ordered.assign(doc=[d+'x' for d in docs]))")
quad("RBO depth 100 of 20k", "from tiedrank.stats import rank_biased_overlap as r; r(tied, ordered, depth=100)")
quad("RBO 200k tied", "from tiedrank.stats import rank_biased_overlap as r; r(tied, ordered)", n=200000)
quad("rank_correlation 20k tied", "from tiedrank.stats import rank_correlation as r; r(tied, ordered)")
for m in ["RR", "AP", "nDCG@10", "ERR@20", "nERR@20", "infAP", "iprec_at_recall_0.50", "11pt_avg",
          "Compat", "INST(T=3)", "INSQ(T=3)", "BPM(T=3)@100", "RBP", "bpref", "G", "P@1000", "Rprec",
          "gm_map", "utility", "set_F"]:
    quad(f"evaluate {m} ties=all on 20k tied", f"from tiedrank import evaluate\nevaluate(tied, qrels, [{m!r}], ties='all')", timeout=60)
quad("compare_runs 1 query x 20k", "from tiedrank import evaluate\nfrom tiedrank.stats import compare_runs\nev = evaluate({'a': tied, 'b': ordered}, qrels, ['AP'], ties='all')\ncompare_runs(ev, baseline='a', metrics=['AP'], test='randomization', n_resamples=999)")
quad("Compare page overlap 12k", "from tiedrank import evaluate\nfrom tiedrank.dashboard.run_overlap import overlap_of_runs\nev = evaluate({'a': tied, 'b': ordered}, qrels, ['RR'])\noverlap_of_runs(ev, 'a', 'b', 0.9)", n=12000)
quad("fragile 20k", "from tiedrank import evaluate\nfrom tiedrank.stats import fragile_queries\nev = evaluate({'a': tied, 'b': ordered}, qrels, ['AP'], ties='all')\nfragile_queries(ev, 'a', 'b', 'AP')")
quad("sample_run_means 20k", "from tiedrank import build_tie_table\nfrom tiedrank.core.data import Run, Qrels\nfrom tiedrank.sampling import sample_run_means\nfrom tiedrank import read_qrels\nt = build_tie_table(Run('a', tied), read_qrels(qrels))\nsample_run_means(t, 'AP', 100, seed=1)")
DIV = """
rows = [(str(q), str(d % S + 1), f"d{d}", 1) for q in range(Q) for d in range(D)]
rows += [(str(q), str((d + 1) % S + 1), f"d{d}", 1) for q in range(Q) for d in range(D)]
qd = "".join(f"{q} {s} {d} {g}\\n" for q, s, d, g in rows).encode()
run = pd.DataFrame({"query": np.repeat([str(q) for q in range(Q)], D), "doc": [f"d{d}" for d in range(D)] * Q, "score": 1.0})
from tiedrank import evaluate
"""
def div(name, m, Q, D, S, ties="all", timeout=60):
    case("quadratic", name, timeout=timeout)(DIV.replace("Q", str(Q)).replace("D)", f"{D})").replace("range(D)", f"range({D})").replace("S +", f"{S} +").replace("* Q", f"* {Q}").replace(", D)", f", {D})") + f"evaluate(run, qd, [{m!r}], ties={ties!r})")
div("alpha_nDCG@20 150x17 all", "alpha_nDCG@20", 150, 17, 17)
div("alpha_nDCG@20 100x17 all", "alpha_nDCG@20", 100, 17, 17)
div("NRBP 50x30 groups all", "NRBP", 50, 30, 6)
div("AP_IA 20x40 all", "AP_IA", 20, 40, 8)
div("nNRBP one query 12000 expected", "nNRBP", 1, 12000, 7, ties="expected")
div("alpha_nDCG@20 one query 50000 expected", "alpha_nDCG@20", 1, 50000, 12, ties="expected")
div("ERR_IA@20 10x25 all", "ERR_IA@20", 10, 25, 25)
div("P_IA@10 one query 50000 all", "P_IA@10", 1, 50000, 5)
div("StRecall@20 30x20 all", "StRecall@20", 30, 20, 20)
case("quadratic", "docs 10 MB document", kind="cli_docs")("10mb")

# ---------------- class 2: every writer ------------------------------------------------------
RUNF = f"{ROOT}/sample_data/trec_eval/results.test"
QRELSF = f"{ROOT}/sample_data/trec_eval/qrels.test"
W2 = [("quantize to FIFO with reader", "fifo"), ("quantize to /dev/null", "devnull"),
      ("quantize to symlink --force", "symlink"), ("quantize to dangling symlink --force", "dangling"),
      ("quantize to symlink to dir", "linkdir"), ("quantize to a directory", "dir"),
      ("quantize to -", "dash"), ("quantize into missing dir", "missing"),
      ("quantize into read-only dir", "readonly"), ("quantize to existing without --force", "exists"),
      ("quantize to a socket", "socket"), ("quantize to a symlink loop", "loop"),
      ("quantize to trailing slash", "slash"), ("quantize to empty name", "empty"),
      ("simulate --out - --qrels -", "bothdash"), ("simulate --out - --qrels file", "dashqrels"),
      ("quantize to 300-char name", "longname"), ("quantize to /dev/full", "devfull"),
      ("quantize onto its input via symlink", "input"), ("quantize to .gz FIFO", "fifogz"),
      ("evaluate --buckets --out on FIFO", "bucketfifo"), ("evaluate --buckets --out on existing file", "bucketfile"),
      ("quantize to symlink to FIFO", "linkfifo"), ("simulate --qrels to /dev/null", "qrelsnull"),
      ("quantize to name with newline", "newline")]
for name, tag in W2:
    case("writers", name, kind="writer")(tag)
case("writers", "library replacing on a symlink loop")("from tiedrank.io.outputs import replacing\nimport tempfile\nd = tempfile.mkdtemp()\nos.symlink('loopx', d + '/loopx')\nwith replacing(d + '/loopx') as p: open(p, 'w').write('x')")
case("writers", "library write_run to closed file")("from tiedrank import read_run\nfrom tiedrank.io import write_run\nf = open('closed.txt', 'w'); f.close()\nwrite_run(read_run(" + repr(RUNF) + "), f)")
case("writers", "library check_outputs '-' twice")("from tiedrank.io.outputs import check_outputs\ncheck_outputs({'--out': '-', '--qrels': '-'})")

# ---------------- class 3: Arrow types -------------------------------------------------------
ARR = """
import pyarrow as pa, polars as pl, duckdb
from tiedrank import read_run, read_qrels, evaluate
q = ["q1", "q1", "q2"]; d = ["a", "b", "c"]; s = [1.0, 2.0, 3.0]
def tab(**cols): return pa.table({"query": cols.get("query", q), "doc": cols.get("doc", d), "score": cols.get("score", s)})
"""
def arrow(name, expr, check="len(r.frame) == 3"):
    case("arrow", name)(ARR + f"r = read_run({expr})\nassert {check}, r.frame\nnote = r.frame.dtypes.tolist()")
arrow("dict int8 string", "tab(query=pa.DictionaryArray.from_arrays(pa.array([0,0,1], pa.int8()), pa.array(['q1','q2'])))")
arrow("dict with null index", "tab(query=pa.DictionaryArray.from_arrays(pa.array([0,None,1], pa.int8()), pa.array(['q1','q2'])))")
arrow("dict large_string", "tab(doc=pa.array(d, pa.large_string()).dictionary_encode())")
arrow("dict string_view", "tab(doc=pa.DictionaryArray.from_arrays(pa.array([0,1,2], pa.uint32()), pa.array(d, pa.string_view())))")
arrow("dict int64 values", "tab(query=pa.array([1,1,2]).dictionary_encode())")
arrow("dict binary values", "tab(doc=pa.array([b'a', b'b', b'c']).dictionary_encode())")
arrow("binary ids", "tab(doc=pa.array([b'a', b'b', b'c']))")
arrow("binary_view ids", "tab(doc=pa.array([b'a', b'b', b'c'], pa.binary_view()))")
arrow("large_binary ids", "tab(doc=pa.array([b'a', b'b', b'c'], pa.large_binary()))")
arrow("fixed_size_binary ids", "tab(doc=pa.array([b'a', b'b', b'c'], pa.binary(1)))")
arrow("string_view with null", "tab(doc=pa.array(['a', None, 'c'], pa.string_view()))")
arrow("large_string ids", "tab(query=pa.array(q, pa.large_string()))")
arrow("float16 score", "tab(score=pa.array(np.array(s, np.float16)))")
arrow("float32 score", "tab(score=pa.array(s, pa.float32()))")
arrow("decimal128 score", "tab(score=pa.array([__import__('decimal').Decimal('1.5')]*3, pa.decimal128(5, 2)))")
arrow("decimal256 score", "tab(score=pa.array([__import__('decimal').Decimal('1.5')]*3, pa.decimal256(40, 2)))")
arrow("int64 score near 2^63", "tab(score=pa.array([2**63-1, 2**62, 1]))")
arrow("uint64 score", "tab(score=pa.array([2**64-1, 1, 2], pa.uint64()))")
arrow("bool score", "tab(score=pa.array([True, False, True]))")
arrow("timestamp score", "tab(score=pa.array([0, 1, 2], pa.timestamp('s')))")
arrow("list doc", "tab(doc=pa.array([['a'], ['b'], ['c']]))")
arrow("struct doc", "tab(doc=pa.array([{'x': 1}, {'x': 2}, {'x': 3}]))")
arrow("null-type doc", "tab(doc=pa.nulls(3))")
arrow("dict score", "tab(score=pa.array(s).dictionary_encode())")
arrow("empty table", "pa.table({'query': pa.array([], pa.string()), 'doc': pa.array([], pa.string()), 'score': pa.array([], pa.float64())})", check="len(r.frame) == 0")
arrow("zero-chunk columns", "pa.table({'query': pa.chunked_array([], pa.string()), 'doc': pa.chunked_array([], pa.string()), 'score': pa.chunked_array([], pa.float64())})", check="len(r.frame) == 0")
arrow("many chunks", "pa.Table.from_batches([pa.record_batch([pa.array([x]), pa.array([y]), pa.array([z])], names=['query','doc','score']) for x, y, z in zip(q, d, s)])")
arrow("RecordBatchReader", "tab().to_reader()")
arrow("polars Categorical", "pl.DataFrame({'query': q, 'doc': d, 'score': s}).with_columns(pl.col('query').cast(pl.Categorical))")
arrow("polars Categorical with null", "pl.DataFrame({'query': q, 'doc': ['a', None, 'c'], 'score': s}).with_columns(pl.col('doc').cast(pl.Categorical))")
arrow("polars Enum doc", "pl.DataFrame({'query': q, 'doc': d, 'score': s}).with_columns(pl.col('doc').cast(pl.Enum(['c','b','a'])))")
arrow("polars Decimal score", "pl.DataFrame({'query': q, 'doc': d, 'score': s}).with_columns(pl.col('score').cast(pl.Decimal(10, 2)))")
arrow("polars Int128 score", "pl.DataFrame({'query': q, 'doc': d, 'score': [1, 2, 3]}).with_columns(pl.col('score').cast(pl.Int128))")
arrow("polars lazy frame", "pl.DataFrame({'query': q, 'doc': d, 'score': s}).lazy()")
arrow("duckdb ENUM", "duckdb.sql(\"select * from (values ('q1','a',1.0),('q1','b',2.0),('q2','c',3.0)) t(query, doc, score)\").select(\"query::ENUM('q1','q2') as query, doc, score\")")
arrow("duckdb VARCHAR", "duckdb.sql(\"select * from (values ('q1','a',1.0),('q1','b',2.0),('q2','c',3.0)) t(query, doc, score)\")")
arrow("duckdb DECIMAL score", "duckdb.sql(\"select * from (values ('q1','a',1.5),('q1','b',2.5),('q2','c',3.5)) t(query, doc, score)\")")
case("arrow", "qrels iteration from polars Categorical")(ARR + "qr = pl.DataFrame({'query': ['q1','q1'], 'iteration': ['1','2'], 'doc': ['a','a'], 'relevance': [1, 1]}).with_columns(pl.col('iteration').cast(pl.Categorical))\nassert read_qrels(qr).subtopics is not None")
case("arrow", "qrels iteration from duckdb")(ARR + "import pandas as pd\nqr = duckdb.from_df(pd.DataFrame({'query': ['q1','q1'], 'iteration': [1, 2], 'doc': ['a','a'], 'relevance': [1, 1]}))\nassert read_qrels(qr).subtopics is not None")
case("arrow", "qrels iteration 0 everywhere from pyarrow (plain)")(ARR + "qr = pa.table({'query': ['q1','q1'], 'iteration': [0, 0], 'doc': ['a','b'], 'relevance': [1, 0]})\nassert read_qrels(qr).subtopics is None")

# ---------------- class 4: labels and names --------------------------------------------------
LBL = "from tiedrank import evaluate, parse_metric\nev = evaluate(pd.DataFrame({'query': 'q', 'doc': ['a','b'], 'score': [1.0, 1.0]}), pd.DataFrame({'query': 'q', 'doc': ['a'], 'relevance': [1]}), ['RR'])\n"
for label in ["tab:main_results", "tab:a&b", "tab:50%", "tab:é", "tab:a#b", "tab:{x}", "tab:a\\\\b", "tab:a b", "tab:x\\ny", "", "tab:a$b", "tab:-.:/"]:
    case("labels", f"to_latex label {label!r}")(LBL + f"out = ev.to_latex(label={label!r})\nassert ('\\\\label{{' + {label!r} + '}}') in out or not {label!r}")
for a, b in [("RBP(p=0.1234567)", "RBP(p=0.1234568)"), ("RBP(p=0.9)", "RBP(p=0.90000001)"), ("SDCG(max_rel=2147483647)@10", "SDCG(max_rel=2147483646)@10"),
             ("TsRR(alpha=1e-300)", "TsRR(alpha=2e-300)"), ("RBP(p=0.1)", "RBP(p=0.1000000000000001)"), ("INSQ(T=3)", "INSQ(T=3.0000000001)")]:
    case("labels", f"names differ {a} / {b}")(f"from tiedrank import parse_metric\nx, y = parse_metric({a!r}), parse_metric({b!r})\nassert x.name != y.name, (x.name, y.name)\nassert parse_metric(x.name) == x and parse_metric(y.name) == y")


def writer_case(tag):
    import socket, shutil, stat
    work = f"{BASE}/w_{tag}"
    shutil.rmtree(work, ignore_errors=True); os.makedirs(work)
    args = ["quantize", RUNF, "--levels", "3", "--out"]
    reader = None
    if tag == "fifo" or tag == "fifogz" or tag == "linkfifo":
        name = "ff.gz" if tag == "fifogz" else "ff"
        os.mkfifo(f"{work}/{name}")
        if tag == "linkfifo":
            os.symlink(name, f"{work}/lf"); name = "lf"
        reader = subprocess.Popen(f"cat {work}/{'ff.gz' if tag == 'fifogz' else 'ff'} > {work}/got", shell=True)
        r = run_cli(args + [name, "--force"], cwd=work)
        reader.wait(20)
        r["ok"] = r["ok"] and os.path.getsize(f"{work}/got") > 0 and stat.S_ISFIFO(os.stat(f"{work}/{'ff.gz' if tag == 'fifogz' else 'ff'}").st_mode)
        return r
    if tag == "devnull": return run_cli(args + ["/dev/null"], cwd=work)
    if tag == "devfull": return expect_refused(run_cli(args + ["/dev/full"], cwd=work), "No space")
    if tag == "symlink":
        open(f"{work}/t", "w").write("x"); os.symlink("t", f"{work}/l")
        r = run_cli(args + ["l", "--force"], cwd=work); r["ok"] = r["ok"] and os.path.islink(f"{work}/l") and os.path.getsize(f"{work}/t") > 100; return r
    if tag == "dangling":
        os.symlink("made", f"{work}/l"); r = run_cli(args + ["l", "--force"], cwd=work)
        r["ok"] = r["ok"] and os.path.islink(f"{work}/l") and os.path.exists(f"{work}/made"); return r
    if tag == "linkdir": os.mkdir(f"{work}/d"); os.symlink("d", f"{work}/l"); return expect_refused(run_cli(args + ["l", "--force"], cwd=work), "directory")
    if tag == "dir": os.mkdir(f"{work}/d"); return expect_refused(run_cli(args + ["d", "--force"], cwd=work), "directory")
    if tag == "dash":
        r = run_cli(args + ["-"], cwd=work); r["ok"] = r["ok"] and not os.path.exists(f"{work}/-"); return r
    if tag == "missing": return expect_refused(run_cli(args + ["nodir/x.txt"], cwd=work), "cannot write")
    if tag == "readonly":
        os.mkdir(f"{work}/ro"); os.chmod(f"{work}/ro", 0o555)
        r = run_cli(args + ["ro/x.txt"], cwd=work)
        if os.geteuid() == 0: r["note"] = "root: writes anyway"; return r
        return expect_refused(r, "cannot write")
    if tag == "exists": open(f"{work}/x", "w").write("x"); return expect_refused(run_cli(args + ["x"], cwd=work), "exists")
    if tag == "socket":
        s = socket.socket(socket.AF_UNIX); s.bind(f"{work}/sock")
        return expect_refused(run_cli(args + ["sock", "--force"], cwd=work), "socket")
    if tag == "loop": os.symlink("loop", f"{work}/loop"); return expect_refused(run_cli(args + ["loop", "--force"], cwd=work), "loop of symbolic links")
    if tag == "slash": return expect_refused(run_cli(args + ["x.txt/"], cwd=work), "")
    if tag == "empty": return expect_refused(run_cli(args + [""], cwd=work), "")
    if tag == "bothdash": return expect_refused(run_cli(["simulate", "--preset", "0-10", "--queries", "2", "--out", "-", "--qrels", "-"], cwd=work), "same")
    if tag == "dashqrels":
        r = run_cli(["simulate", "--preset", "0-10", "--queries", "2", "--out", "-", "--qrels", "q.txt"], cwd=work); r["ok"] = r["ok"] and os.path.exists(f"{work}/q.txt"); return r
    if tag == "qrelsnull": return run_cli(["simulate", "--preset", "0-10", "--queries", "2", "--out", "r.txt", "--qrels", "/dev/null"], cwd=work)
    if tag == "longname": return expect_refused(run_cli(args + ["x" * 300], cwd=work), "cannot write")
    if tag == "input":
        shutil.copy(RUNF, f"{work}/in.txt"); os.symlink("in.txt", f"{work}/l")
        r = run_cli(["quantize", "in.txt", "--levels", "3", "--out", "l", "--force"], cwd=work); return expect_refused(r, "input")
    if tag == "newline":
        r = run_cli(args + ["a\nb.txt"], cwd=work); return r
    if tag == "bucketfifo":
        os.mkfifo(f"{work}/ff")
        return expect_refused(run_cli(["evaluate", QRELSF, RUNF, "--buckets", "2", "--out", "ff"], cwd=work, timeout=60), "")
    if tag == "bucketfile":
        open(f"{work}/x", "w").write("x")
        return expect_refused(run_cli(["evaluate", QRELSF, RUNF, "--buckets", "2", "--out", "x"], cwd=work, timeout=60), "")
    raise ValueError(tag)

def expect_refused(r, word):
    if r.get("type") in ("TIMEOUT", "TRACEBACK"):
        return r
    r["ok"] = (not r["ok"]) and r["type"] == "exit 2" and word in r.get("msg", "")
    return r

def main():
    os.makedirs(WORK, exist_ok=True)
    import cbor2, lz4.frame as F, functools
    v = [1.0]
    for _ in range(40): v = [v, v]
    open(f"{WORK}/chain40.lz4", "wb").write(F.compress(F.compress(b'\xa1\x61q\xa1\x61d' + cbor2.dumps(v, value_sharing=True))))
    results = []
    only = sys.argv[1:] 
    for cls, name, kind, body, expect_ok, kw in CASES:
        if only and cls not in only: continue
        if kind == "py":
            out = run_py(body, **kw)
            if not out["ok"] and out.get("type") in CLEAN_ERRORS:
                out["clean"] = True
            else:
                out["clean"] = out["ok"]
        elif kind == "cli_file":
            out = run_cli(["evaluate", QRELSF, "chain40.lz4", "-m", "RR"])
            out["clean"] = out["type"] == "exit 2" and "CBOR tag 28" in out.get("msg", "")
        elif kind == "cli_docs":
            w = WORK
            open(f"{w}/dq", "w").write("1 0 d1 1\n"); open(f"{w}/dr", "w").write("1 Q0 d1 1 2.0 r\n")
            open(f"{w}/dc.tsv", "w").write("d1\t" + "x" * 10_000_000 + "\n")
            out = run_cli(["docs", "dq", "dr", "--query", "1", "--corpus", "dc.tsv"], timeout=60)
            out["clean"] = out["ok"] and out.get("secs", 99) < 20
        elif kind == "writer":
            out = writer_case(body); out["clean"] = out["ok"]
        results.append({"class": cls, "case": name, **out})
        print(json.dumps(results[-1])[:300], flush=True)
    by = {}
    for r in results:
        c = by.setdefault(r["class"], [0, 0]); c[0 if r["clean"] else 1] += 1
    print("SUMMARY", json.dumps(by), "total", len(results), "clean", sum(v[0] for v in by.values()), "failed", sum(v[1] for v in by.values()))

if __name__ == "__main__":
    main()
