"""trec_eval's measure parameters, read as trec_eval 10 reads them (meas_init.c, gain_init.c).

``-m name.params``: everything after the first ``.`` is the parameter list, and each kind of
measure reads it its own way:

* **cutoffs** (``P``, ``recall``, ``ndcg_cut``, ``map_cut``, ``relative_P``, ``success``,
  ``unj``): integers, read with C's ``atol`` (``ndcg_cut.10,20,23.4``: 23.4 is cutoff 23),
  sorted; one printed line per cutoff (``P_23``);
* **real cutoffs** (``iprec_at_recall``, ``Rprec_mult``): numbers (``.10``, ``5.0``), sorted;
  one line per value, printed ``%3.2f`` (``Rprec_mult_5.00``);
* **real parameters** (``11pt_avg``: the recall levels; ``relstring``: the length;
  ``set_F``: beta; ``utility``: the four coefficients): one line, printed under the name
  and the parameters as typed (``11pt_avg_.25,.5,.75``, ``utility_2,-1,0,0``);
* **name=value pairs** (``ndcg.1=3,2=9,4=4.5``: the gain of grades 1, 2, 4;
  ``rbp.p=0.8``, ``rbp_resid.p=0.5``: the persistence): one line, printed as typed
  (``ndcg_1=3,2=9,4=4.5``).

trec_eval's printed names are read back as well (:func:`output_name`): ``P_5``,
``Rprec_mult_0.40``, ``iprec_at_recall_0.30``, ``relative_P_5``, ``utility_2,-1,0,0``,
``rbp_p=0.8``, ``relstring_20`` are the measure with those parameters.

Where trec_eval takes something without a word and computes a number that means nothing
(``map.5``: a parameter the measure never reads; ``P.x``: cutoff 0; ``set_F.0.5,2``: the 2
is ignored; gain pairs on a measure that does not read them), tiedrank refuses it in one
line that says what to write instead.

Examples
--------
>>> read_parameters("ndcg_cut", "10,20,23.4").metrics
('nDCG@10', 'nDCG@20', 'nDCG@23')
>>> parsed = read_parameters("utility", "2,-1,0,0")
>>> parsed.metrics, parsed.label
(('utility(2.0, -1.0, 0.0, 0.0)',), 'utility_2,-1,0,0')
>>> output_name("Rprec_mult_0.40"), output_name("relative_P_5"), output_name("map")
(('Rprec_mult', '0.40'), ('relative_P', '5'), None)
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..metrics import parse_metric
from ..metrics.gain_maps import EXAMPLE as GAIN_EXAMPLE
from ..metrics.registry import MAX_CUTOFF

REAL_CUTOFFS = ("iprec_at_recall", "Rprec_mult")
"""trec_eval's measures with real cutoffs (te_init_meas_a_double_cut_double)."""
REAL_PARAMETERS = ("11pt_avg", "relstring", "set_F", "utility")
"""trec_eval's measures with one line and a list of real parameters
(te_init_meas_s_double_p_double)."""
PAIRS = ("ndcg", "rbp", "rbp_resid", "ndcg_rel", "Rndcg", "G", "dcg", "ideal_dcg")
"""trec_eval's measures with name=value parameters (te_init_meas_s_double_p_pair)."""
CUTOFFS = ("P", "recall", "ndcg_cut", "map_cut", "relative_P", "success", "unj")
"""trec_eval's measures with integer cutoffs (te_init_meas_a_double_cut_long)."""

_FAMILY = {"P": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP",
           "relative_P": "relative_P", "success": "Success", "unj": "unj",
           "iprec_at_recall": "iprec_at_recall", "Rprec_mult": "Rprec_mult",
           "11pt_avg": "11pt_avg", "set_F": "set_F", "utility": "utility", "ndcg": "nDCG",
           "rbp": "RBP_graded", "rbp_resid": "rbp_resid", "ndcg_rel": "ndcg_rel",
           "Rndcg": "Rndcg", "G": "G"}
GAIN_PAIRS = ("ndcg", "ndcg_rel", "Rndcg", "rbp", "G")
"""trec_eval's measures whose grade=gain pairs tiedrank reads (setup_gains in gain_init.c)."""
_REAL = r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?"
_ATOL = re.compile(r"\s*([-+]?\d+)(\.\d*)?\s*", re.ASCII)  # an integer, or a decimal C's atol truncates
RELSTRING_DEFAULT = 10
"""trec_eval's relstring length when none is given (m_relstring.c)."""


@dataclass(frozen=True)
class Parameters:
    """What one measure's parameter list asks for: the tiedrank ``metrics`` (names), the
    ``label`` trec_eval prints the one line of a measure with real or paired parameters under
    (``None``: each metric's own trec_eval name, ``P_5``), and the ``relstring`` length."""

    metrics: tuple[str, ...]
    label: str | None = None
    relstring: int | None = None


def read_parameters(name: str, params: str, text: str | None = None) -> Parameters:
    """The metrics of trec_eval's ``-m name.params`` (``text``: the item as typed, for the
    messages). ``ValueError`` naming the item and what to write instead."""
    subject = f"trec_eval measure {text or name + '.' + params!r}"
    parts = [p.strip() for p in params.split(",")]
    label = f"{name}_{params}"
    if name in CUTOFFS:
        return Parameters(tuple(f"{_FAMILY[name]}@{k}" for k in _cutoffs(subject, name, parts)))
    if name in REAL_CUTOFFS:
        values = _reals(subject, name, parts, f"{name}.0.2,1")
        if len(set(values)) < len(values):
            raise ValueError(f"{subject}: a value is repeated; write each once")
        return Parameters(tuple(f"{_FAMILY[name]}({v!r})" for v in sorted(values)))
    if name == "relstring":
        length = _cutoffs(subject, name, parts, least=0)
        if len(length) != 1:
            raise ValueError(f"{subject}: the parameter is one length, e.g. relstring.20")
        return Parameters((), label, length[0])
    if name == "11pt_avg":
        levels = _reals(subject, name, parts, "11pt_avg..25,.5,.75")
        if list(levels) != sorted(set(levels)):
            raise ValueError(f"{subject}: give the recall levels ascending, each once (trec_eval's"
                             " loop assumes it), e.g. 11pt_avg..25,.5,.75")
        return Parameters((f"11pt_avg(levels={' '.join(map(repr, levels))})",), label)
    if name == "set_F":
        beta = _reals(subject, name, parts, "set_F.0.5")
        if len(beta) != 1:
            raise ValueError(f"{subject}: the parameter is one number, beta, e.g. set_F.0.5 "
                             "(trec_eval reads the first and ignores the rest)")
        return Parameters((f"set_F({beta[0]!r})",), label)
    if name == "utility":
        coefficients = _reals(subject, name, parts, "utility.1,-1,0,0")
        if len(coefficients) != 4:
            raise ValueError(f"{subject}: the parameter must be 4 numbers separated by commas, "
                             "e.g. utility.1,-1,0,0")
        return Parameters((f"utility({', '.join(map(repr, coefficients))})",), label)
    if name in PAIRS:
        return Parameters((_paired(subject, name, parts),), label)
    raise ValueError(f"{subject}: tiedrank's {name} takes no parameters (trec_eval would "
                     f"ignore them); write {name}")


def _cutoffs(subject: str, name: str, parts: list[str], least: int = 1) -> tuple[int, ...]:
    """Integer cutoffs as C's atol reads them (a decimal is truncated: 23.4 is 23), sorted;
    trec_eval's refusals (a cutoff < 1, a repeated one) and text atol would read as 0."""
    example = "relstring.20" if name == "relstring" else f"{name}.5,10"
    read = [_ATOL.fullmatch(p) for p in parts]
    if not all(read):
        raise ValueError(f"{subject}: cutoffs must be integers >= {least} separated by commas, "
                         f"e.g. {example}")
    values = sorted(int(m.group(1)) for m in read)
    if values[0] < least or values[-1] > MAX_CUTOFF:
        raise ValueError(f"{subject}: cutoffs must be integers >= {least} separated by commas, "
                         f"e.g. {example}")
    if len(set(values)) < len(values):
        raise ValueError(f"{subject}: a cutoff is repeated; write each once, e.g. "
                         f"{name}.{','.join(map(str, sorted(set(values))))}")
    return tuple(values)


def _reals(subject: str, name: str, parts: list[str], example: str) -> tuple[float, ...]:
    """Real parameters as C's atof reads them (``.25``, ``5.0``, ``1e-1``)."""
    if not all(re.fullmatch(_REAL, p, re.ASCII) for p in parts):
        raise ValueError(f"{subject}: the parameters must be numbers separated by commas, "
                         f"e.g. {example}")
    return tuple(float(p) for p in parts)


def _paired(subject: str, name: str, parts: list[str]) -> str:
    """``rbp.p=0.8``, ``ndcg.1=3,2=9``: the metric's name with those parameters."""
    pairs = _pairs_of(subject, name, parts)
    persistence = [value for key, _, value in pairs if key == "p"]
    gains = [(key, value) for key, _, value in pairs if _GRADE.fullmatch(key)]
    other = [key for key, _, _ in pairs if key != "p" and not _GRADE.fullmatch(key)]
    _check_keys(subject, name, persistence, gains, other)
    if name not in _FAMILY:  # dcg, ideal_dcg: not in tiedrank yet (refused by the caller)
        raise ValueError(f"{subject}: {name} is not yet tie-aware in tiedrank")
    args = [f"p={persistence[0]}"] if persistence else []
    if gains:
        args.append(_gain_argument(subject, name, args, gains))
    return f"{_FAMILY[name]}({', '.join(args)})" if args else _FAMILY[name]


_GRADE = re.compile(r"[-+]?\d+", re.ASCII)
"""A key of trec_eval's gain pairs (``ndcg.1=3``): a grade."""


def _pairs_of(subject: str, name: str, parts: list[str]) -> list[tuple[str, str, str]]:
    """``key=value`` items as ``(key, "=", value)``; a ValueError for any other item."""
    pairs = [p.partition("=") for p in parts]
    if not all(eq and key and re.fullmatch(_REAL, value, re.ASCII) for key, eq, value in pairs):
        raise ValueError(f"{subject}: the parameters must be name=value pairs separated by "
                         f"commas, e.g. {name}." + ("p=0.8" if name.startswith("rbp")
                                                    else "1=3,2=9,4=4.5"))
    return pairs


def _check_keys(subject: str, name: str, persistence: list[str], gains: list, other: list[str]
                ) -> None:
    """Refuse gain pairs ``name`` does not read, unknown keys and ``p=`` given twice."""
    takes_p, takes_gains = name in ("rbp", "rbp_resid"), name in GAIN_PAIRS
    if gains and not takes_gains:
        raise ValueError(f"{subject}: trec_eval's gain pairs such as {name}.1=4.0 are read for "
                         f"{', '.join(GAIN_PAIRS)} only; tiedrank's {name} uses trec_eval's "
                         "default gains, gain = grade (map the grades in the qrels for others)")
    if not (other or (persistence and not takes_p) or len(persistence) > 1):
        return
    unread = other[0] if other else "p"
    if unread == "p" and takes_p:
        raise ValueError(f"{subject}: {name} reads {unread}= once at most")
    raise ValueError(f"{subject}: {name} does not read {unread}=; it takes "
                     f"{_keys_taken(name, takes_p, takes_gains)}")


def _keys_taken(name: str, takes_p: bool, takes_gains: bool) -> str:
    """What ``name`` reads, in words, with an example."""
    if takes_p and not takes_gains:
        return "p=<persistence>, e.g. " + name + ".p=0.8"
    if takes_p:
        return "p=<persistence> and grade=gain pairs, e.g. rbp.p=0.8,1=3,2=9"
    return f"grade=gain pairs, e.g. {name}.1=3,2=9,4=4.5" if takes_gains else "nothing"


def _gain_argument(subject: str, name: str, args: list[str], gains: list[tuple[str, str]]
                   ) -> str:
    """``gain=1:3 2:9`` of trec_eval's gain pairs, checked by parsing the metric it makes."""
    text = " ".join(f"{int(k)}:{v}" for k, v in gains)
    argument = f"gain={text}"
    try:
        parse_metric(f"{_FAMILY[name]}({', '.join([*args, argument])})")
    except ValueError as error:
        example = GAIN_EXAMPLE.replace(":", "=").replace(" ", ",")
        raise ValueError(f"{subject}: {error}; e.g. {name}.{example}") from None
    return argument


def output_name(text: str, measures: "dict | None" = None) -> tuple[str, str] | None:
    """trec_eval's printed name of a measure with parameters, as ``(measure, params)``:
    ``P_5`` -> ``("P", "5")``, ``Rprec_mult_0.40`` -> ``("Rprec_mult", "0.40")``,
    ``utility_2,-1,0,0`` -> ``("utility", "2,-1,0,0")``; ``None`` for anything else (the
    longest measure name that prefixes ``text`` and takes parameters decides: ``relative_P_5``
    is relative_P's, not P's)."""
    names = [n for n in _PRINTED if text.startswith(n + "_")]
    if not names:
        return None
    name = max(names, key=len)
    params = text[len(name) + 1:]
    return (name, params) if _PRINTED[name].fullmatch(params) else None


_LIST = rf"{_REAL}(,{_REAL})*"
_PRINTED = {**{n: re.compile(r"\d+", re.ASCII) for n in CUTOFFS},
            **{n: re.compile(_REAL, re.ASCII) for n in REAL_CUTOFFS},
            **{n: re.compile(_LIST, re.ASCII) for n in REAL_PARAMETERS},
            **{n: re.compile(rf"[\w+-]+={_REAL}(,[\w+-]+={_REAL})*", re.ASCII) for n in PAIRS}}
"""How trec_eval prints the parameters of each kind of measure after its name and ``_``
(``rbp_graded``, ``rbp_resid(p=0.9)`` are tiedrank's names, not printed ones)."""


__all__ = ["CUTOFFS", "GAIN_PAIRS", "PAIRS", "Parameters", "REAL_CUTOFFS", "REAL_PARAMETERS",
           "RELSTRING_DEFAULT", "output_name", "read_parameters"]
