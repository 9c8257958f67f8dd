"""Comparisons of runs: the public name for :mod:`tiedrank.stats` (kept for existing code)."""
from .stats import *
