"""Uploads kept on the server by content hash, so that a link to uploaded data survives a reload.

A Streamlit session forgets its file uploaders when the browser reloads the page or opens
the link in another tab (a new session). The sidebar therefore hands every set of uploads
(their bytes, names, the column mapping and the duplicates choice) to an
:class:`UploadStore`; the link carries the set's key, 16 hex digits of a sha256 over the
files' own sha256 digests and those choices (``?dataset=upload&upload_key=<key>``). A new
session opening that link on the same server gets the same files and choices back, so the same
numbers.

The store keeps everything in memory, in a :class:`~tiedrank.dashboard.cache.MemoryBoundedCache`
(the dashboard's one cache, :data:`~tiedrank.dashboard.cache.SHARED`, unless told
otherwise): one byte budget bounds uploads and derived results together, entries expire
after the cache's time to live (2 hours) and the least recently used go first. Each file's
bytes are stored once under its sha256, however many sets (column mappings, run lists) name
it; a set is known only while every file it names is. Nothing here executes or interprets
the bytes: they go back to the ordinary readers, as uploaded.

Examples
--------
>>> from tiedrank.dashboard.cache import MemoryBoundedCache
>>> store = UploadStore(MemoryBoundedCache(budget_bytes=10_000))
>>> qrels = KeptFile.of("qrels.txt", b"q1 0 d1 1\\n")
>>> run = KeptFile.of("run.txt", b"q1 Q0 d1 1 0.5 mine\\n")
>>> key = store.keep(KeptUploads(qrels=qrels, runs=(run,)))
>>> len(key), store.restore(key).runs[0].getvalue()
(16, b'q1 Q0 d1 1 0.5 mine\\n')
>>> store.restore("0123456789abcdef") is None   # unknown: expired, evicted or another server
True
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace

from .cache import SHARED, MemoryBoundedCache

KEY_LENGTH = 16
"""Hex digits of a key in the link: 64 bits, so two sets never share one in practice, and
another user's key cannot be guessed."""
KEY_PATTERN = re.compile(rf"[0-9a-f]{{{KEY_LENGTH}}}")
"""What a key looks like; anything else in a link is ignored before it reaches the store."""
_SET, _BYTES = "upload-store:set", "upload-store:bytes"


@dataclass(frozen=True)
class KeptFile:
    """One uploaded file as the store keeps it, readable where the sidebar reads a Streamlit
    ``UploadedFile`` (``name``, ``size``, ``file_id``, ``getvalue()``).

    Attributes
    ----------
    name : str
        The file's name as uploaded (runs are named after it).
    data : bytes or memoryview
        Its bytes; a memoryview is copied into ``bytes`` only when first stored.
    sha256 : str
        Hex sha256 of ``data`` (the sidebar computes it once per upload).
    columns : tuple of (str, str)
        The column mapping chosen for it: (field, column) pairs, sorted; empty for TREC files.
    file_id : str
        Unique within one set (the sidebar's widget keys are built from it).
    """

    name: str
    data: bytes | memoryview = field(repr=False)
    sha256: str
    columns: tuple[tuple[str, str], ...] = ()
    file_id: str = ""

    @classmethod
    def of(cls, name: str, data: bytes, columns: dict[str, str] | None = None) -> "KeptFile":
        """A file from its name and bytes (the sha256 computed here).

        >>> KeptFile.of("a.csv", b"x", {"score": "s", "doc": "d"}).columns
        (('doc', 'd'), ('score', 's'))
        """
        return cls(name, data, hashlib.sha256(data).hexdigest(), tuple(sorted((columns or {}).items())))

    @property
    def size(self) -> int:
        return len(self.data)

    def getvalue(self) -> bytes:
        return bytes(self.data)


@dataclass(frozen=True)
class KeptUploads:
    """A set of uploads and the sidebar's choices for them: what one link restores.

    Attributes
    ----------
    qrels : KeptFile or None
    runs : tuple of KeptFile
    queries : KeptFile or None
        The optional query texts.
    duplicates : str
        The runs' repeated documents: ``"error"`` or ``"max"``.
    """

    qrels: KeptFile | None = None
    runs: tuple[KeptFile, ...] = ()
    queries: KeptFile | None = None
    duplicates: str = "error"

    def files(self) -> list[KeptFile]:
        """Every file of the set, qrels first, query texts last."""
        return [f for f in (self.qrels, *self.runs, self.queries) if f is not None]

    def key(self) -> str:
        """The set's key: the first :data:`KEY_LENGTH` hex digits of a sha256 over each
        file's role, name, sha256 and columns, and the duplicates choice. The bytes enter
        through their sha256 only, so computing a key never reads a file again.

        >>> a = KeptUploads(qrels=KeptFile.of("q.txt", b"1"), runs=(KeptFile.of("r.txt", b"2"),))
        >>> a.key() == replace(a, duplicates="max").key(), a.key() == KeptUploads(**vars(a)).key()
        (False, True)
        """
        digest = hashlib.sha256()
        roles = [("qrels", self.qrels), *(("run", f) for f in self.runs), ("queries", self.queries)]
        for role, kept in roles:
            if kept is not None:
                digest.update(repr((role, kept.name, kept.sha256, kept.columns)).encode())
                digest.update(b"\0")
        digest.update(self.duplicates.encode())
        return digest.hexdigest()[:KEY_LENGTH]


@dataclass(frozen=True)
class _Entry:
    """What a key stands for: the files' names, digests and choices, not their bytes."""

    qrels: KeptFile | None
    runs: tuple[KeptFile, ...]
    queries: KeptFile | None
    duplicates: str


class UploadStore:
    """Sets of uploads kept in memory by key, bounded by the cache's byte budget and time to
    live.

    Parameters
    ----------
    cache : MemoryBoundedCache, optional
        Where the bytes and the sets live; the dashboard's one cache
        (:data:`~tiedrank.dashboard.cache.SHARED`) by default, so that one budget
        (``TIEDRANK_CACHE_MB``) bounds uploads and results together.
    """

    def __init__(self, cache: MemoryBoundedCache | None = None) -> None:
        self.cache = SHARED if cache is None else cache

    @property
    def hours(self) -> float:
        """How long a set is kept at most (the cache's time to live), in hours."""
        return self.cache.ttl_seconds / 3600

    def keep(self, uploads: KeptUploads) -> str | None:
        """Store ``uploads`` (a no-op, apart from marking them recently used, when they are
        already kept) and return their key; ``None`` when they could not be kept (a file
        larger than the whole budget).

        Each file's bytes are stored once under its sha256 (two sets naming the same file
        share them); the set itself holds names, digests and choices only.

        >>> from tiedrank.dashboard.cache import MemoryBoundedCache
        >>> store = UploadStore(MemoryBoundedCache(budget_bytes=1_000))
        >>> store.keep(KeptUploads(qrels=KeptFile.of("q.txt", bytes(5_000)))) is None
        True
        """
        for kept in uploads.files():
            data = self.cache.get_or_compute((_BYTES, kept.sha256), lambda kept=kept: bytes(kept.data))
            if self.cache.get((_BYTES, kept.sha256)) is not data:
                return None  # too large to keep: the link could not bring it back
        key = uploads.key()
        self.cache.get_or_compute((_SET, key), lambda: _Entry(
            _without_bytes(uploads.qrels), tuple(_without_bytes(f) for f in uploads.runs),
            _without_bytes(uploads.queries), uploads.duplicates))
        return key

    def restore(self, key: str) -> KeptUploads | None:
        """The uploads kept under ``key`` (each file with its bytes and columns, and a
        ``file_id`` unique within the set), or ``None`` when the key is malformed, unknown,
        expired, or names a file no longer kept.

        >>> UploadStore().restore("../../etc/passwd") is None
        True
        """
        if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key):
            return None
        entry = self.cache.get((_SET, key))
        if entry is None:
            return None
        restored: list[KeptFile | None] = []
        for index, kept in enumerate((entry.qrels, *entry.runs, entry.queries)):
            if kept is None:
                restored.append(None)
                continue
            data = self.cache.get((_BYTES, kept.sha256))
            if data is None:
                return None
            restored.append(replace(kept, data=data, file_id=f"kept{index}_{kept.sha256[:12]}"))
        return KeptUploads(qrels=restored[0], runs=tuple(restored[1:-1]), queries=restored[-1],
                           duplicates=entry.duplicates)


def _without_bytes(kept: KeptFile | None) -> KeptFile | None:
    return None if kept is None else replace(kept, data=b"", file_id="")


STORE = UploadStore()
"""The store every dashboard session shares (in :data:`~tiedrank.dashboard.cache.SHARED`)."""
