"""tiedrank beside other IR tools (ranx, pytrec_eval, ir_measures, PyTerrier, trec_eval), as
ir_measures keeps its ``providers/``: everything that knows another tool's objects or names.

* :mod:`~tiedrank.interop.adapters` — ranx Run/Qrels, pytrec_eval dicts and ir_measures /
  ir_datasets tuples as runs and qrels (the readers of :mod:`tiedrank.io` call it);
* :mod:`~tiedrank.interop.names` — ir_measures measure objects as tiedrank metrics, and
  tiedrank's metrics under trec_eval's and ranx's names (``Evaluation.to_trec_eval`` /
  ``to_ranx``);
* :mod:`~tiedrank.interop.measures` — tiedrank's tie policies as ir_measures measures
  (``Expected(nDCG@10)``, ``Best``, ``Worst``, ``TrecEvalOrder``) and a ``tiedrank``
  provider. It needs ir_measures, so it is imported by name only:
  ``from tiedrank.interop.measures import Expected``.

None of these modules imports a peer tool except :mod:`~tiedrank.interop.measures`
(objects are duck-typed).

This is the outer layer: it imports the core, the core never imports it. Importing it plugs
its translators into the core's socket, :data:`tiedrank.core.peers.PEERS` (``tiedrank``
has it imported at the first read of a slot), so every door reads other tools' names and objects and writes their
formats without the core knowing any of them.
"""
from ..core.peers import plug
from . import trec_eval
from .adapters import ACCEPTED, as_table, is_nested_runs, is_peer_object, peer_role
from .names import (RANX_NAMES, TREC_EVAL_NAMES, from_ir_measures, ranx_name, read_peer_metric,
                    trec_eval_name)

plug(read_metric=read_peer_metric, expand_metrics=trec_eval.expand_metrics,
     is_peer_object=is_peer_object, as_table=as_table, is_nested_runs=is_nested_runs,
     peer_role=peer_role,
     accepted=ACCEPTED, format_trec_eval=trec_eval.format_trec_eval, ranx_name=ranx_name)

__all__ = ["ACCEPTED", "RANX_NAMES", "TREC_EVAL_NAMES", "as_table", "from_ir_measures",
           "is_nested_runs", "is_peer_object", "peer_role", "ranx_name", "trec_eval_name"]
