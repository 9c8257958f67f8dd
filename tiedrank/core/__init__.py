"""The engine: validated frames (``data``), the options checked once (``options``,
``validation``, ``policies``), the tie-group table (``ties``), exact sums (``summation``),
stable hashes (``hashing``) and the evaluation that scores tables (``evaluation``).

The core imports nothing from :mod:`tiedrank.interop`, :mod:`tiedrank.distributed`,
:mod:`tiedrank.cli` or :mod:`tiedrank.dashboard`; peer tools' objects and spellings are
translated at the doors (``tests/test_layering.py`` checks it).
"""
