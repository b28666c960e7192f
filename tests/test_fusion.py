"""Fusion of the keyword and semantic rankings: the convex combination of min-max scaled scores, and RRF."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from search.query import fusion

scores = st.floats(min_value=-50, max_value=50, allow_nan=False)
ranking = st.dictionaries(st.integers(0, 30), scores, max_size=20).map(
    lambda found: sorted(found.items(), key=lambda item: (-item[1], item[0])))


def test_a_lead_on_one_side_counts_by_its_size_not_only_its_rank():
    # keyword: chunk 1 far ahead; semantic: 2 barely ahead of 1. RRF ties 1 and 2 (rank 1 + rank 2 each);
    # the convex combination keeps 1's large keyword lead.
    lexical = [(1, 30.0), (2, 3.0), (3, 2.0)]
    semantic = [(2, 0.81), (1, 0.80), (3, 0.30)]
    fused = fusion.convex(lexical, semantic)
    assert [item for item, _, _ in fused] == [1, 2, 3]
    assert fused[0][2] == [1, 2] and fused[1][2] == [2, 1], "each hit keeps its rank on both sides"
    rrf = fusion.rrf(lexical, semantic)
    assert rrf[0][1] == rrf[1][1], "RRF cannot tell the two apart"


def test_a_candidate_missing_from_one_side_gets_nothing_there():
    fused = dict((item, score) for item, score, _ in fusion.convex([(1, 5.0), (2, 1.0)], [(3, 0.9), (2, 0.5)]))
    assert fused[1] == fusion.SEMANTIC_WEIGHT * 0 + (1 - fusion.SEMANTIC_WEIGHT) * 1.0
    assert fused[3] == fusion.SEMANTIC_WEIGHT * 1.0
    assert fused[2] == 0.0, "last on both sides"


def test_scores_that_scale_to_the_same_value_keep_their_order():
    # 4.8e-54 and 0.0 both scale to 1.0 against -1.0: the tie goes to the chunk ranked better (found by hypothesis)
    ranking = [(2, 4.794103606084358e-54), (1, 0.0), (0, -1.0)]
    assert [item for item, _, _ in fusion.convex(ranking, ranking)] == [2, 1, 0]


def test_the_best_keyword_hit_wins_a_tie_with_the_best_semantic_hit_whatever_their_ids():
    # 'withRetry': one passage holds the word (chunk 363), the semantic best is a PDF page without it (chunk
    # 689); each is missing from the other ranking, so both fuse to 0.5. The id decided; now the exact words do.
    for keyword_id, semantic_id in ((363, 689), (689, 363)):
        fused = fusion.convex([(keyword_id, 7.5)], [(semantic_id, 0.41), (2726, 0.40), (5, 0.10)])
        assert fused[0][1] == fused[1][1] == 0.5
        assert [item for item, _, _ in fused[:2]] == [keyword_id, semantic_id]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a loaded machine's pace is no failure
@given(lexical=ranking, semantic=ranking)
def test_convex_scores_lie_in_0_1_and_come_best_first(lexical, semantic):
    fused = fusion.convex(lexical, semantic)
    assert {item for item, _, _ in fused} == {i for i, _ in lexical} | {i for i, _ in semantic}
    assert all(0.0 <= score <= 1.0 + 1e-9 for _, score, _ in fused)
    assert [score for _, score, _ in fused] == sorted((score for _, score, _ in fused), reverse=True)
    if lexical and semantic and lexical[0][0] == semantic[0][0]:
        assert fused[0][0] == lexical[0][0], "first on both sides is first"
    for item, _, (k_rank, s_rank) in fused:
        assert (k_rank is None) == (item not in dict(lexical)) and (s_rank is None) == (item not in dict(semantic))
