"""``tiedrank metrics``: every measure, how to write it, what the peers call it, what it is.

One row per metric family of the registry (:func:`tiedrank.interop.names.metric_catalogue`):
its forms (``RR``, ``RR@k``), aliases, trec_eval's ``-m`` forms, ranx's and ir_measures' names
and a one-line definition. A word narrows the list to the measures any of whose names
contain it (``tiedrank metrics ndcg``); ``--format`` gives the list to scripts.
"""
from __future__ import annotations

import argparse
import textwrap

from ..interop.names import metric_catalogue
from ..report import FORMATS, csv_safe, render

EXAMPLES = """examples:
  tiedrank metrics                     (every measure, a block each)
  tiedrank metrics ndcg                (the measures any of whose names contain 'ndcg')
  tiedrank metrics recip_rank          (which measure trec_eval's recip_rank is)
  tiedrank metrics --format tsv        (one row each, tab-separated, for scripts)
  tiedrank metrics --format json"""
_NAMES = ("metric", "forms", "aliases", "trec_eval", "ranx", "ir_measures")
_PEERS = ("trec_eval", "ranx", "ir_measures")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``metrics`` subcommand to ``subparsers`` (sets ``handler``, as tiedrank.cli)."""
    parser = subparsers.add_parser(
        "metrics", help="list every measure with its aliases, peer names and definition",
        description="List every measure -m accepts: how to write it (forms, aliases), "
        "what trec_eval (-m forms), ranx and ir_measures call it, and what it is.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("word", nargs="?", default=None,
                        help="only the measures any of whose names contain WORD (any case)")
    parser.add_argument("--format", choices=("table", "tsv") + FORMATS[1:], default="table",
                        help="table (default: a block per measure), tsv, csv, json, latex "
                             "or markdown (one row per measure)")
    parser.set_defaults(handler=_metrics)


def _metrics(args: argparse.Namespace) -> int:
    table = metric_catalogue()
    if args.word:
        word = args.word.strip().casefold()
        hits = table[list(_NAMES)].apply(lambda column: column.str.casefold().str.contains(
            word, regex=False)).any(axis=1)
        table = table[hits].reset_index(drop=True)
        if table.empty:
            raise ValueError(f"no measure has a name containing {args.word!r}; "
                             "`tiedrank metrics` lists them all")
    if args.format == "table":
        print(_blocks(table))
    elif args.format == "tsv":
        print(csv_safe(table).to_csv(sep="\t", index=False), end="")
    else:
        print(render(table, args.format))
    return 0


def _blocks(table) -> str:
    """A block per measure: its forms and aliases, the peers' names, the definition."""
    blocks = []
    for row in table.itertuples(index=False):
        head = row.forms + (f"   (aliases: {row.aliases})" if row.aliases else "")
        peers = "   ".join(f"{peer}: {getattr(row, peer)}" for peer in _PEERS
                           if getattr(row, peer))
        lines = [head] + ([f"    {peers}"] if peers else [])
        lines += textwrap.wrap(row.definition, 92, initial_indent="    ",
                               subsequent_indent="    ")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)
