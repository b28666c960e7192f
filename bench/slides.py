"""A slide deck as one passage or a passage a slide: ten questions, one about each slide of a generated 10-slide
lecture, ranked by meaning among the passages of ../shared/data/pdf's PDFs (multilingual-e5-small). Prints, per
question, the rank of the deck's best passage each way and the slide it is; then each way's first places and MRR.
(ingest.pdf reads a deck as a passage a slide: README, PDFs.)

    .venv/bin/python bench/slides.py [--model PATH]
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench.common import shared_data  # noqa: E402
from ingest.chunk import chunk_document  # noqa: E402
from ingest.pdf import parse_pdf  # noqa: E402
from search.model.embedding import Embedder  # noqa: E402
from search.model.info import read_model_info  # noqa: E402

SLIDES = [
 "Lecture 5: Evaluating search engines. IR701 Information Retrieval, Spring 2026",
 "Precision: the fraction of retrieved documents that are relevant. Precision at k counts only the top k results",
 "Recall: the fraction of relevant documents that are retrieved. Hard to measure on large collections",
 "Mean average precision: average the precision at each relevant document, then average over queries",
 "nDCG: graded relevance, gains discounted by the log of the rank, normalised by the ideal ranking",
 "Pooling: judge only the union of the top 100 documents from each submitted run; unjudged means not relevant",
 "Assessor agreement: two judges agree on about 70 percent of documents; Cohen's kappa corrects for chance",
 "Significance testing: paired t-test or randomisation test over per-query scores; beware many comparisons",
 "Click models: users click what they see; position bias makes clicks on low ranks rarer",
 "Summary: pick the metric that matches the task; report per-query variance; reuse test collections with care",
]
QUESTIONS = [
 "which lecture of the retrieval course is about evaluation",
 "what share of the returned results are actually relevant",
 "how many of the relevant documents did the system find",
 "how is MAP computed across queries",
 "metric with graded judgments and a logarithmic discount",
 "how are documents chosen for relevance judging in TREC",
 "how often do two relevance judges agree",
 "how to tell whether one system is really better than another",
 "why do people click less on results further down",
 "main advice about choosing an evaluation measure",
]
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--model", default=os.path.expanduser("~/.sift/models/multilingual-e5-small.gguf"))
emb = Embedder(read_model_info(parser.parse_args().model))
others = []
for p in sorted(str(path) for path in shared_data("pdf").glob("*/*.pdf")):
    try:
        d = parse_pdf(p, open(p, "rb").read())
    except Exception:
        continue
    others += [c.embedding_text for c in chunk_document(d, emb.count, 256, 32)]
whole = "\n\n".join(SLIDES)
print("deck tokens", emb.count(whole), "other passages", len(others))
O = emb.embed(others)
W = emb.embed([whole])
S = emb.embed(SLIDES)
Q = emb.embed(QUESTIONS, kind="query")


def rank(qv, deck):
    o = O @ qv
    d = deck @ qv
    best = d.max()
    return 1 + int((o > best).sum()), int(d.argmax())


rw, rs, right = [], [], 0
for i, qv in enumerate(Q):
    a, _ = rank(qv, W); b, slide = rank(qv, S)
    rw.append(a); rs.append(b); right += slide == i
    print(f"q{i}: whole deck rank {a}, per-slide rank {b} (slide {slide + 1}{' ok' if slide == i else ''})")
print("whole: first", sum(r == 1 for r in rw), "MRR %.3f" % np.mean([1 / r for r in rw]))
print("per slide: first", sum(r == 1 for r in rs), "MRR %.3f" % np.mean([1 / r for r in rs]), "right slide", right, "of", len(Q))
