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
"""
from .adapters import ACCEPTED, as_table, is_nested_runs, is_peer_object
from .names import RANX_NAMES, TREC_EVAL_NAMES, from_ir_measures, ranx_name, trec_eval_name

__all__ = ["ACCEPTED", "RANX_NAMES", "TREC_EVAL_NAMES", "as_table", "from_ir_measures",
           "is_nested_runs", "is_peer_object", "ranx_name", "trec_eval_name"]
