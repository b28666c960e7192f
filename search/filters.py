"""Search filters, applied before top-k: collection, path prefix, kind, modified time."""
from __future__ import annotations

from dataclasses import dataclass

KINDS = ("note", "code", "pdf", "text")


@dataclass(frozen=True)
class Filters:
    collection: str | None = None
    path_prefix: str | None = None  # relative to the collection root, e.g. "clients/" or "工作/日报/"
    kind: str | None = None
    modified_after: float | None = None  # unix time
    modified_before: float | None = None

    def __post_init__(self):
        if self.kind is not None and self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")

    def sql(self) -> tuple[str, list]:
        """A WHERE fragment over files f and collections c, with its parameters."""
        parts, params = [], []
        if self.collection:
            parts.append("c.name = ?")
            params.append(self.collection)
        if self.path_prefix:
            parts.append("substr(f.path, 1, ?) = ?")
            params += [len(self.path_prefix), self.path_prefix]
        if self.kind:
            parts.append("f.kind = ?")
            params.append(self.kind)
        if self.modified_after is not None:
            parts.append("f.mtime >= ?")
            params.append(self.modified_after)
        if self.modified_before is not None:
            parts.append("f.mtime < ?")
            params.append(self.modified_before)
        return (" AND " + " AND ".join(parts)) if parts else "", params
