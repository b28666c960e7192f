"""Fusing the keyword and the vector ranking into one.

Hybrid search uses a convex combination of the two rankings' scores, each
scaled to 0..1 over its own candidates (min-max): ``(1 - w) * keyword +
w * semantic`` with w = 0.5, and a candidate missing from one ranking gets 0
there. Unlike reciprocal rank fusion it keeps how far apart the scores are:
a chunk far ahead on one side stays ahead, where RRF gives rank 1 and rank 2
nearly the same weight (Bruch, Gai and Ingber, "An Analysis of Fusion
Functions for Hybrid Retrieval", 2023, found the convex combination better
than RRF in and out of domain). Measured with ``bench/quality.py`` on the same
indexes (the weight was not tuned; 0.5 is the untuned middle), nDCG@10 RRF ->
convex: SciFact with multilingual-e5-small 0.712 -> 0.717, with
all-MiniLM-L6-v2 0.722 -> 0.734; zh-retrieval with e5 0.312 -> 0.323.

A keyword ranking that holds every passage with any of the query's words (fewer than the candidates asked for) is
scaled from 0, the score of a passage holding none of them, not from its last candidate's: min-max gave the last
passage holding a rare word ('Lindqvist', in a lecture's transcript and one short diary note) the 0 of a passage
without it, and unrelated semantic hits ranked above the transcript. A ranking cut at the candidates keeps min-max:
passages left out of it score up to its last one.

Reciprocal rank fusion stays for rankings whose scores are not comparable at
all: collections embedded with different models.
"""
from __future__ import annotations

K = 60  # the constant of Cormack et al. (2009)
SEMANTIC_WEIGHT = 0.5

Ranking = list[tuple[int, float]]  # [(id, score)], best first, a higher score better
Fused = list[tuple[int, float, list[int | None]]]  # [(id, fused score, [rank in each ranking or None])]


def convex(lexical: Ranking, semantic: Ranking, weight: float = SEMANTIC_WEIGHT, whole: bool = False) -> Fused:
    """The keyword and the semantic ranking combined by their min-max scaled scores, best first; ``whole``: the
    keyword ranking holds every passage with a word of the query, scaled from 0."""
    fused: dict[int, float] = {}
    ranks: dict[int, list[int | None]] = {}
    for which, (ranking, share) in enumerate(((lexical, 1.0 - weight), (semantic, weight))):
        for rank, (item, scaled) in enumerate(_scaled(ranking, whole and which == 0), start=1):
            fused[item] = fused.get(item, 0.0) + share * scaled
            ranks.setdefault(item, [None, None])[which] = rank
    return _ordered(fused, ranks)


def rrf(*rankings: Ranking, k: int = K, weights: tuple[float, ...] | None = None) -> Fused:
    """Reciprocal rank fusion, best first. Ranks are 1-based."""
    weights = weights or (1.0,) * len(rankings)
    fused: dict[int, float] = {}
    ranks: dict[int, list[int | None]] = {}
    for which, ranking in enumerate(rankings):
        for rank, (item, _score) in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weights[which] / (k + rank)
            ranks.setdefault(item, [None] * len(rankings))[which] = rank
    return _ordered(fused, ranks)


def _scaled(ranking: Ranking, from_zero: bool = False) -> list[tuple[int, float]]:
    """Scores mapped to 0..1 (the best 1, the last candidate 0, or a score of 0 ``from_zero``); all equal: all 1."""
    if not ranking:
        return []
    scores = [score for _, score in ranking]
    low, high = min(scores), max(scores)
    low = min(low, 0.0) if from_zero else low
    if high <= low:
        return [(item, 1.0) for item, _ in ranking]
    return [(item, (score - low) / (high - low)) for item, score in ranking]


def _ordered(fused: dict[int, float], ranks: dict[int, list[int | None]]) -> Fused:
    """Best fused score first; on a tie (scaling can round two close scores to the same value) the better
    ranks on the rankings (a missing one counts as past the end), then one the first ranking (keyword) holds,
    then the id. The best of the keyword ranking and the best of the semantic one, each missing from the other,
    tie at 0.5: an identifier only one passage holds ('withRetry') came first or second by its chunk id, after
    a page of a PDF that held none of its letters."""
    past_end = len(fused) + 1
    order = sorted(fused, key=lambda item: (-fused[item], sum(past_end if r is None else r for r in ranks[item]),
                                            ranks[item][0] is None, item))
    return [(item, fused[item], ranks[item]) for item in order]
