"""Metric names and trec_eval parameters take ASCII digits only (issue 29): Python's ``\\d``,
``int`` and ``float`` read ``１０`` (fullwidth) and ``١٠`` (Arabic-Indic) as 10, so without
one check at the door ``P@１０`` silently became P@10. Each door refuses it in one message
naming the character and what to type instead."""
from __future__ import annotations

import pytest

from tiedrank import evaluate, read_qrels, read_run
from tiedrank.interop.trec_eval import expand_metrics

QRELS, RUN = "sample_data/trec_eval/qrels.test", "sample_data/trec_eval/results.test"
NAMES = [  # as typed, what to type instead, the character named
    ("P@１０", "P@10", "FULLWIDTH DIGIT ONE"),
    ("P@١٠", "P@10", "ARABIC-INDIC DIGIT ONE"),
    ("nDCG@5", None, None),
    ("Best(P@١٠)", "Best(P@10)", "ARABIC-INDIC DIGIT ONE"),
    ("RR(rel=２)", "RR(rel=2)", "FULLWIDTH DIGIT TWO"),
    ("map-l٢", "map-l2", "ARABIC-INDIC DIGIT TWO"),
    ("ndcg_cut_１０", "ndcg_cut_10", "FULLWIDTH DIGIT ONE"),
    ("nDCG(gain=1:９)@10", "nDCG(gain=1:9)@10", "FULLWIDTH DIGIT NINE"),
    ("TsRR(alpha=２.5)", "TsRR(alpha=2.5)", "FULLWIDTH DIGIT TWO"),
]


@pytest.fixture(scope="module")
def inputs():
    return read_qrels(QRELS), read_run(RUN)


@pytest.mark.parametrize("typed, ascii_name, character", NAMES)
def test_python_evaluate_refuses_other_digits(inputs, typed, ascii_name, character):
    qrels, run = inputs
    if ascii_name is None:  # the control: ASCII digits are read
        assert evaluate(run, qrels, metrics=[typed]) is not None
        return
    with pytest.raises(ValueError) as raised:
        evaluate(run, qrels, metrics=[typed])
    assert str(raised.value) == (f"metric {typed!r}: {typed[[c.isdecimal() and not c.isascii() for c in typed].index(True)]!r} "
                                 f"({character}) is not an ASCII digit; type {ascii_name}")
    evaluate(run, qrels, metrics=[ascii_name])  # what the message says to type is read


TREC_FORMS = [("P.１０", "P.10"), ("ndcg_cut.5,١٠", "ndcg_cut.5,10"), ("set_F.０.5", "set_F.0.5"),
              ("ndcg.1=３,2=9", "ndcg.1=3,2=9"), ("rbp.p=０.8", "rbp.p=0.8"),
              ("Rprec_mult.٠.2", "Rprec_mult.0.2")]


@pytest.mark.parametrize("typed, ascii_name", TREC_FORMS)
def test_trec_eval_form_refuses_other_digits(typed, ascii_name):
    with pytest.raises(ValueError, match=rf"^trec_eval measure {typed!r}: .* is not an ASCII "
                       rf"digit; type {ascii_name}$"):
        expand_metrics(typed)
    assert expand_metrics(ascii_name).metrics


@pytest.mark.parametrize("typed", ["P@１０", "P.١٠"])
def test_cli_m_refuses_other_digits(capsys, typed):
    from tiedrank.cli import main

    status = main(["evaluate", QRELS, RUN, "-m", typed])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    assert err.strip().endswith("is not an ASCII digit; type " + ("P@10" if "@" in typed
                                                                 else "P.10")), err
