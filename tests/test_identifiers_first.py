"""A paper's table, figure or equation asked for by its number ('Table 2', 'Fig. 3'), or a DOI pasted as its link:
search.query.references looks a label up as a phrase, written short or long, and search.query.identifiers puts the
passages writing either first in hybrid search, where the model, for which they mean nothing, ranked abstracts
holding a '3', or about the paper's subject, above them."""
from __future__ import annotations

import shutil

from search.query.references import phrases
from tests.conftest import need_data, write_tree
from tests.test_pdf_parser import sized_pdf

# SciFact abstracts a hybrid search for 'Fig. 3' or the trial's DOI ranked above the passages writing it (by meaning,
# and by their '3's), here as in a researcher's collection of 100 of them
ABSTRACTS = ("10165258", "19182166", "10443642")
DOI = "10.1016/S2213-8587(20)30001-5"


def test_a_label_is_looked_up_as_a_phrase_written_short_and_long():
    assert phrases("Table 2") == ["Table 2", "tab 2"]
    assert phrases("Fig. 3b") == ["Fig 3b", "figure 3b"]
    assert phrases("Supplementary Table S1") == ["Table S1", "tab S1"]
    assert phrases("Table 2.1") == ["Table 2 1", "tab 2 1"]
    assert phrases("tables of 2 columns") == [] and phrases("figure it out") == []


def test_a_table_or_figure_by_its_number_finds_the_passages_writing_it_first(immediate, tmp_path, embedder):
    from tests.conftest import indexed_engine
    root = write_tree(tmp_path / "phd", {
        "notes/smith2020.md": "# Smith 2020\n\nDose of 800 IU may be too low; Table 2 shows p = 0.71.\n",
        "notes/reading.md": f"# Reading\n\nSmith 2020 (doi {DOI}) found no effect on hip fracture.\n",
        "library.bib": "@article{smith2020vitd,\n  title = {Vitamin {D} Supplementation and Fracture Risk in Older "
                       "Adults: A Randomised Trial},\n  author = {Smith, Jane and Lee, Robert},\n  year = {2020},\n"
                       "  journal = {The Lancet Diabetes \\& Endocrinology},\n  keywords = {vitamin D, fracture, RCT},\n"
                       f"  doi = {{{DOI}}},\n  abstract = {{We randomised 2,400 adults to vitamin D3 or placebo. No "
                       "effect on hip fracture.}\n}\n\n@article{chen2019brca,\n  title = {{BRCA1} Loss and {IL}-6 "
                       "Signalling in Triple-Negative Breast Cancer},\n  author = {Chen, Wei},\n  journaltitle = "
                       "{Nature Medicine},\n  doi = {10.1038/s41591-019-0456-7},\n}\n",
        **{f"abstracts/{name}.md": need_data(f"scifact/docs/{name}.md").read_text() for name in ABSTRACTS}})
    (root / "papers").mkdir()
    (root / "papers" / "smith2020.pdf").write_bytes(sized_pdf(
        [(18, "Vitamin D supplementation and fracture risk in older adults"), (11, "Jane Smith, Robert Lee"),
         (10, "We randomised 2,400 adults aged 65 or older to vitamin D3 or placebo.")],
        later=[["Results", "Table 2. Fracture outcomes by treatment group", "Outcome Vitamin D Placebo p-value",
                "Hip fracture 61 63 0.71", "Figure 3. Kaplan-Meier curves of time to first fracture."]]))
    engine = indexed_engine(root, "phd", embedder)
    # 'Fig. 3' of a paper that writes 'Figure 3': found, and 'Fig' not named as held nowhere
    figure = engine.search("Fig. 3", limit=10)
    assert figure.hits[0].path == "papers/smith2020.pdf", [(h.path, h.score) for h in figure.hits]
    assert not any("'Fig'" in n for n in figure.notes), figure.notes
    table = engine.search("Table 2", limit=10)
    assert {h.path for h in table.hits[:2]} == {"notes/smith2020.md", "papers/smith2020.pdf"}, \
        [(h.path, h.score) for h in table.hits]
    moved = [h.score for h in table.hits] != sorted((h.score for h in table.hits), reverse=True)  # scores kept
    assert any("the passages writing Table 2 come first" in n for n in table.notes) == moved, table.notes
    # a DOI pasted as its link: the entry and the note writing it first, 'https' and 'org' not named as held nowhere
    for query in (f"https://doi.org/{DOI}", f"doi:{DOI}"):
        linked = engine.search(query, limit=10)
        assert {(h.path, h.heading_path) for h in linked.hits[:2]} == {
            ("library.bib", "smith2020vitd"), ("notes/reading.md", "Reading")}, \
            [(h.path, h.heading_path, h.score) for h in linked.hits]
        assert not any("'org'" in n or "'doi'" in n for n in linked.notes), linked.notes
