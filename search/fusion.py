"""Reciprocal rank fusion of keyword and vector rankings."""
from __future__ import annotations

K = 60  # the constant of Cormack et al. (2009)


def rrf(*rankings: list[tuple[int, float]], k: int = K, weights: tuple[float, ...] | None = None
        ) -> list[tuple[int, float, list[int | None]]]:
    """[(id, fused score, [rank in each ranking or None])], best first. Ranks are 1-based."""
    weights = weights or (1.0,) * len(rankings)
    fused: dict[int, float] = {}
    ranks: dict[int, list[int | None]] = {}
    for which, ranking in enumerate(rankings):
        for rank, (item, _score) in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weights[which] / (k + rank)
            ranks.setdefault(item, [None] * len(rankings))[which] = rank
    order = sorted(fused, key=lambda item: (-fused[item], item))
    return [(item, fused[item], ranks[item]) for item in order]
