"""A PhD student's research folder, written from the tables below (bench/research.py, tests/test_research.py).

    Zotero/zotero.sqlite                       Zotero's database (a kind Sift does not read)
    Zotero/storage/ABCD1234/Vaswani et al. - 2017 - Attention is all you need.pdf   (English PDFs of shared/data/pdf)
    Zotero/storage/ABCD1234/.zotero-ft-cache   Zotero's full-text cache (hidden: left out)
    library.bib                                Better BibTeX's export: every paper, LaTeX accents, `file = {…}`
    thesis/main.tex, thesis/chapters/*.tex     the thesis: preamble, \\input, \\chapter/\\section, \\cite, math
    thesis/refs.bib                            the thesis' own few entries
    notes/*.md                                 literature notes citing with Pandoc citekeys, `[@key, p. 4]`
"""
from __future__ import annotations

import shutil
from pathlib import Path

# key, type, title, authors (BibTeX's), year, venue, abstract, keywords, doi
PAPERS = [
    ("vaswani2017attention", "inproceedings", "Attention Is All You Need",
     "Vaswani, Ashish and Shazeer, Noam and Parmar, Niki and Uszkoreit, Jakob and Jones, Llion and Gomez, Aidan N. "
     "and Kaiser, {\\L}ukasz and Polosukhin, Illia", 2017, "Advances in Neural Information Processing Systems",
     "We propose a new simple network architecture, the {Transformer}, based solely on attention mechanisms, "
     "dispensing with recurrence and convolutions entirely. Experiments on two machine translation tasks show "
     "these models to be superior in quality while being more parallelizable.",
     "attention, transformer, machine translation", "10.48550/arXiv.1706.03762"),
    ("devlin2019bert", "inproceedings",
     "{{BERT}}: Pre-training of Deep Bidirectional Transformers for Language Understanding",
     "Devlin, Jacob and Chang, Ming-Wei and Lee, Kenton and Toutanova, Kristina", 2019,
     "Proceedings of {NAACL-HLT}",
     "We introduce a new language representation model which pre-trains deep bidirectional representations from "
     "unlabeled text by jointly conditioning on both left and right context in all layers.",
     "transformer, pre-training, language model", "10.18653/v1/N19-1423"),
    ("he2016resnet", "inproceedings", "Deep Residual Learning for Image Recognition",
     "He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian", 2016, "{IEEE} {CVPR}",
     "We present a residual learning framework to ease the training of networks that are substantially deeper "
     "than those used previously, reformulating layers as learning residual functions.",
     "computer vision, residual networks", "10.1109/CVPR.2016.90"),
    ("mueller2021graph", "article", "Sparse Graph Attention for Molecular Property Prediction",
     "M{\\\"u}ller, Thomas and Weber, Anna", 2021, "Journal of Machine Learning Research",
     "Message passing over molecular graphs with a sparse attention pattern that keeps only chemically bonded "
     "neighbours, predicting solubility and toxicity with fewer parameters.",
     "graph neural networks, chemistry", "10.5555/jmlr.2021.0412"),
    ("smith2020", "inproceedings", "Curriculum Learning for Low-Resource Neural Machine Translation",
     "Smith, Jane and O'Neil, Patrick", 2020, "Proceedings of {ACL}",
     "Ordering training sentences from easy to hard by word rarity improves translation quality for language "
     "pairs with under one million parallel sentences.",
     "curriculum learning, machine translation, low-resource", "10.18653/v1/2020.acl-main.118"),
    ("garcia2019federated", "article", "Federated Averaging under Non-{IID} Client Data",
     "Garc{\\'\\i}a, Mar{\\'\\i}a and Chen, Li", 2019, "Transactions on Machine Learning Research",
     "Clients whose local label distributions differ slow federated averaging down; sharing a small public "
     "warm-up set restores convergence.",
     "federated learning, optimization", "10.5555/tmlr.2019.77"),
    ("bahdanau2015neural", "inproceedings", "Neural Machine Translation by Jointly Learning to Align and Translate",
     "Bahdanau, Dzmitry and Cho, Kyunghyun and Bengio, Yoshua", 2015, "{ICLR}",
     "A fixed-length vector is a bottleneck for encoder-decoder translation; we let the model soft-search the "
     "source sentence for the parts relevant to each target word.",
     "attention, machine translation", "10.48550/arXiv.1409.0473"),
    ("hochreiter1997lstm", "article", "Long Short-Term Memory",
     "Hochreiter, Sepp and Schmidhuber, J{\\\"u}rgen", 1997, "Neural Computation",
     "Learning to store information over extended time intervals by recurrent backpropagation takes a very long "
     "time; the constant error carousel of gated memory cells bridges lags of over 1000 steps.",
     "recurrent networks, memory", "10.1162/neco.1997.9.8.1735"),
    ("kingma2015adam", "inproceedings", "Adam: A Method for Stochastic Optimization",
     "Kingma, Diederik P. and Ba, Jimmy", 2015, "{ICLR}",
     "An algorithm for first-order gradient-based optimization of stochastic objective functions, based on "
     "adaptive estimates of lower-order moments.",
     "optimization, optimizer", "10.48550/arXiv.1412.6980"),
    ("srivastava2014dropout", "article", "Dropout: A Simple Way to Prevent Neural Networks from Overfitting",
     "Srivastava, Nitish and Hinton, Geoffrey and Krizhevsky, Alex and Sutskever, Ilya and Salakhutdinov, Ruslan",
     2014, "Journal of Machine Learning Research",
     "Randomly dropping units along with their connections during training prevents units from co-adapting too "
     "much and reduces overfitting.", "regularization", "10.5555/2627435.2670313"),
    ("raffel2020t5", "article",
     "Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer",
     "Raffel, Colin and Shazeer, Noam and Roberts, Adam and Lee, Katherine", 2020,
     "Journal of Machine Learning Research",
     "We convert every language problem into a text-to-text format and compare pre-training objectives, "
     "architectures and unlabeled data sets on dozens of tasks.",
     "transformer, transfer learning", "10.5555/3455716.3455856"),
    ("brown2020gpt3", "inproceedings", "Language Models are Few-Shot Learners",
     "Brown, Tom B. and Mann, Benjamin and Ryder, Nick and others", 2020,
     "Advances in Neural Information Processing Systems",
     "Scaling up language models to 175 billion parameters greatly improves task-agnostic few-shot performance, "
     "sometimes reaching competitiveness with fine-tuning approaches.",
     "language model, in-context learning", "10.48550/arXiv.2005.14165"),
    ("lecun1998gradient", "article", "Gradient-Based Learning Applied to Document Recognition",
     "LeCun, Yann and Bottou, L{\\'e}on and Bengio, Yoshua and Haffner, Patrick", 1998,
     "Proceedings of the {IEEE}",
     "Convolutional neural networks trained with back-propagation recognise handwritten digits better than "
     "hand-crafted feature extraction.", "convolutional networks, handwriting", "10.1109/5.726791"),
    ("schoelkopf2021causal", "article", "Toward Causal Representation Learning",
     "Sch{\\\"o}lkopf, Bernhard and Locatello, Francesco and Bauer, Stefan and Ke, Nan Rosemary", 2021,
     "Proceedings of the {IEEE}",
     "Machine learning and graphical causal models meet: we review how to learn high-level causal variables "
     "from low-level observations.", "causality, representation learning", "10.1109/JPROC.2021.3058954"),
    ("lewis2020rag", "inproceedings",
     "Retrieval-Augmented Generation for Knowledge-Intensive {NLP} Tasks",
     "Lewis, Patrick and Perez, Ethan and Piktus, Aleksandra and Petroni, Fabio", 2020,
     "Advances in Neural Information Processing Systems",
     "A pre-trained sequence-to-sequence generator conditioned on passages fetched by a dense retriever from "
     "Wikipedia sets the state of the art on open-domain question answering.",
     "retrieval, generation, question answering", "10.48550/arXiv.2005.11401"),
    ("karpukhin2020dpr", "inproceedings", "Dense Passage Retrieval for Open-Domain Question Answering",
     "Karpukhin, Vladimir and O{\\u{g}}uz, Barlas and Min, Sewon and Lewis, Patrick", 2020,
     "Proceedings of {EMNLP}",
     "Passages embedded by a dual encoder trained on question and passage pairs outperform BM25 by 9 to 19 points "
     "of top-20 retrieval accuracy.", "dense retrieval, question answering",
     "10.18653/v1/2020.emnlp-main.550"),
    ("robertson2009bm25", "article", "The Probabilistic Relevance Framework: {BM25} and Beyond",
     "Robertson, Stephen and Zaragoza, Hugo", 2009, "Foundations and Trends in Information Retrieval",
     "The probabilistic relevance framework behind BM25 and BM25F, the term weighting of most search engines.",
     "information retrieval, ranking", "10.1561/1500000019"),
    ("reimers2019sbert", "inproceedings",
     "Sentence-{BERT}: Sentence Embeddings using Siamese {BERT}-Networks",
     "Reimers, Nils and Gurevych, Iryna", 2019, "Proceedings of {EMNLP-IJCNLP}",
     "Siamese and triplet network structures fine-tune BERT to derive semantically meaningful sentence "
     "embeddings compared with cosine similarity.", "sentence embeddings", "10.18653/v1/D19-1410"),
    ("jegou2011pq", "article", "Product Quantization for Nearest Neighbor Search",
     "J{\\'e}gou, Herv{\\'e} and Douze, Matthijs and Schmid, Cordelia", 2011,
     "{IEEE} Transactions on Pattern Analysis and Machine Intelligence",
     "Vectors are cut into subvectors quantized separately, so that distances are estimated from short codes.",
     "approximate nearest neighbour, quantization", "10.1109/TPAMI.2010.57"),
    ("malkov2020hnsw", "article",
     "Efficient and Robust Approximate Nearest Neighbor Search Using Hierarchical Navigable Small World Graphs",
     "Malkov, Yu A. and Yashunin, D. A.", 2020,
     "{IEEE} Transactions on Pattern Analysis and Machine Intelligence",
     "A multi-layer proximity graph whose upper layers hold exponentially fewer elements gives logarithmic "
     "search complexity.", "approximate nearest neighbour, graph index", "10.1109/TPAMI.2018.2889473"),
    ("dupont2022claims", "inproceedings", "A Benchmark for Scientific Claim Verification in Biomedicine",
     "Dupont, Fran{\\c{c}}ois and Nguy{\\~\\^e}n, Minh", 2022, "Proceedings of {BioNLP}",
     "Expert-written claims paired with abstracts that support or refute them, with rationale sentences.",
     "claim verification, benchmark, biomedical", "10.18653/v1/2022.bionlp-1.3"),
    ("wachter2018counterfactual", "article",
     "Counterfactual Explanations without Opening the Black Box",
     "Wachter, Sandra and Mittelstadt, Brent and Russell, Chris", 2018, "Harvard Journal of Law \\& Technology",
     "Counterfactual explanations describe the smallest change to the world that would have led to a desired "
     "outcome, without explaining the model's internals.", "explainability, law", "10.2139/ssrn.3063289"),
]
# the papers whose PDF Zotero keeps: storage key and the PDF of shared/data/pdf/en standing for it
STORED = {"vaswani2017attention": ("ABCD1234", "multicolumn.pdf"),
          "devlin2019bert": ("Q7RZ2K9P", "google-doc-document.pdf"),
          "he2016resnet": ("X3M8N4TB", "GeoBase_NHNC1_Data_Model_UML_EN.pdf"),
          "mueller2021graph": ("H2WQ9ZLD", "Seige_of_Vicksburg_Sample_OCR.pdf")}

MAIN = r"""\documentclass[12pt,a4paper]{report}
\usepackage[utf8]{inputenc}
\usepackage{amsmath,amssymb}
\usepackage[style=authoryear]{biblatex}
\addbibresource{refs.bib}
\newcommand{\R}{\mathbb{R}}
% TODO: ask Prof. Ito about the title
\title{Dense Retrieval for Verifying Scientific Claims}
\author{Jana Nov{\'a}k}

\begin{document}
\maketitle
\begin{abstract}
This thesis studies how dense passage retrieval can find the evidence that supports or refutes a scientific
claim. We show that a contrastively trained bi-encoder, re-ranked by a cross-encoder, recovers more rationale
sentences than BM25 on expert-written biomedical claims.
\end{abstract}
\tableofcontents

\input{chapters/intro}
\input{chapters/related}
\input{chapters/method}
\input{chapters/experiments}
\input{chapters/conclusion}

\printbibliography
\end{document}
"""

CHAPTERS = {
    "intro": r"""\chapter{Introduction}\label{ch:intro}
% motivation first, then RQs
Misinformation about medicine spreads faster than fact checkers can read the literature. A system that finds
the abstracts bearing on a claim lets a reader check it in minutes.

\section{Research questions}
\begin{enumerate}
  \item[RQ1] Does dense retrieval find more supporting evidence than lexical retrieval \cite{robertson2009bm25}?
  \item[RQ2] How much does a cross-encoder re-ranker add on top of a bi-encoder?
  \item[RQ3] Can curriculum learning \cite{smith2020} help when only a few hundred training claims exist?
\end{enumerate}

\section{Contributions}
We release a benchmark split and code; the benchmark itself follows \citet{dupont2022claims}.
""",
    "related": r"""\chapter{Related Work}\label{ch:related}
\section{Sparse and dense retrieval}
Lexical ranking with BM25 \cite{robertson2009bm25} remained hard to beat until dual encoders
\cite{karpukhin2020dpr,reimers2019sbert} learned passage embeddings from question--passage pairs.
Approximate nearest neighbour indexes such as product quantization \cite{jegou2011pq} and HNSW graphs
\cite{malkov2020hnsw} make them fast.

\section{Transformers}
The Transformer \cite{vaswani2017attention} replaced recurrence \cite{hochreiter1997lstm} with self-attention;
BERT \cite{devlin2019bert} pre-trains its encoder. Earlier, attention for translation was introduced by
\citet{bahdanau2015neural}.
% \cite{brown2020gpt3} -- drop? too far from the topic

\section{Retrieval-augmented generation}
RAG \cite{lewis2020rag} conditions a generator on retrieved passages; we use retrieval alone.

\section{Curriculum learning}
\citet{smith2020} order training sentences from easy to hard; we order claims by their lexical overlap with
the evidence.
""",
    "method": r"""\chapter{Method}\label{ch:method}
\section{Bi-encoder}
Claims and abstracts are embedded by one encoder initialised from BERT \cite{devlin2019bert}.
\subsection{Contrastive loss}
Given a claim $c$ with its evidence $e^+$ and in-batch negatives $e^-_j$, we minimise the contrastive loss
\begin{equation}
  \mathcal{L} = -\log \frac{\exp(s(c, e^+)/\tau)}{\sum_j \exp(s(c, e_j)/\tau)} % InfoNCE
  \label{eq:loss}
\end{equation}
where $s$ is the cosine similarity and $\tau = 0.05$ the temperature.
\subsection{Hard negatives}
Negatives are mined with BM25 from abstracts of the same journal.

\section{Cross-encoder re-ranker}
The top 100 abstracts are re-scored by a cross-encoder reading claim and abstract together.
""",
    "experiments": r"""\chapter{Experiments}\label{ch:experiments}
\section{Data}
\begin{table}[t]
  \centering
  \begin{tabular}{@{}lrr@{}}
    \toprule
    Split & Claims & Abstracts \\
    \midrule
    Train & 809 & 5,183 \\
    Test & 300 & 5,183 \\
    \bottomrule
  \end{tabular}
  \caption{Dataset statistics: claims and abstracts per split.}\label{tab:data}
\end{table}

\section{Training details}
We train with Adam \cite{kingma2015adam} at a learning rate of $2\times10^{-5}$, batch size 32, for 10 epochs,
with dropout \cite{srivastava2014dropout} of 0.1 on the encoder.

\section{Results}
Dense retrieval reaches nDCG@10 of 0.71 against 0.66 for BM25.

\subsection{Ablation}
Without the re-ranker, nDCG@10 falls to 0.68; without hard negatives to 0.69. Curriculum ordering
\cite{smith2020} adds 0.01 on the smallest training split only.
""",
    "conclusion": r"""\chapter{Conclusion}\label{ch:conclusion}
Dense retrieval with re-ranking finds more evidence than BM25.
\section{Limitations and future work}
Our claims are biomedical only; legal claims (see \cite{wachter2018counterfactual}) and claims in other
languages remain untested. A retrieval-augmented verifier \cite{lewis2020rag} is the next step.
""",
}

REFS = r"""@inproceedings{vaswani2017attention,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and others},
  booktitle = {NeurIPS},
  year = {2017}
}

@article{robertson2009bm25,
  title = {The Probabilistic Relevance Framework: {BM25} and Beyond},
  author = {Robertson, Stephen and Zaragoza, Hugo},
  journal = {Found. Trends Inf. Retr.},
  year = {2009}
}
"""

NOTES = {
    "attention.md": """# Attention is all you need

Read for chapter 2. [@vaswani2017attention]

- Multi-head self-attention: several attention functions in parallel, outputs concatenated [@vaswani2017attention, p. 4].
- Positional encodings are sinusoids, since there is no recurrence.
- Compare with additive attention of @bahdanau2015neural.

Question for the supervisor: is the base model enough for our encoder?
""",
    "dpr.md": """# Dense passage retrieval

[@karpukhin2020dpr] trains a dual encoder on question–passage pairs; in-batch negatives plus one BM25 hard
negative per question. Beats BM25 [@robertson2009bm25] on top-20 accuracy.

My take: the hard negative trick is what we copy in the method chapter.
""",
    "rag.md": """# Retrieval-augmented generation

@lewis2020rag: retriever (DPR, [@karpukhin2020dpr]) + BART generator, marginalised over retrieved passages.
RAG-Sequence vs RAG-Token. Good for knowledge-intensive tasks; not what the thesis does, but reviewers ask.
""",
    "curriculum.md": """# Curriculum learning

@smith2020 — easy-to-hard ordering by word rarity; gains only in low-resource pairs.
Could we order claims by overlap with the evidence? Tried in the ablation: +0.01 on the smallest split.
""",
    "ann-indexes.md": """# Approximate nearest neighbour indexes

- Product quantization [@jegou2011pq]: subvector codebooks, asymmetric distance.
- HNSW [@malkov2020hnsw]: layered small-world graph, log search.

FAISS offers both. For 5k abstracts an exact search is fine; matters at 1M.
""",
    "meeting-2024-03-12.md": """# Supervisor meeting 2024-03-12

- Prof. Ito wants a second baseline besides BM25: maybe Sentence-BERT [@reimers2019sbert].
- Deadline for the related work chapter: end of April.
- Ask the lab for GPU hours.
""",
    "causality.md": """# Causal representation learning

[@schoelkopf2021causal, sec. 3] argues that i.i.d. benchmarks hide the lack of causal structure.
Not for the thesis; interesting for a postdoc proposal.
""",
}


def bibtex(paper: tuple) -> str:
    key, kind, title, authors, year, venue, abstract, keywords, doi = paper
    where = "journal" if kind == "article" else "booktitle"
    lines = [f"@{kind}{{{key},", f"  title = {{{title}}},", f"  author = {{{authors}}},", f"  year = {{{year}}},",
             f"  {where} = {{{venue}}},", f"  abstract = {{{abstract}}},", f"  keywords = {{{keywords}}},",
             f"  doi = {{{doi}}},"]
    if key in STORED:
        folder, _ = STORED[key]
        lines.append(f"  file = {{/home/jana/Zotero/storage/{folder}/{pdf_name(paper)}}},")
    lines.append("  urldate = {2024-02-01},")
    return "\n".join(lines) + "\n}\n"


def pdf_name(paper: tuple) -> str:
    """Zotero's name for a stored PDF: 'Vaswani et al. - 2017 - Attention Is All You Need.pdf'."""
    key, _, title, authors, year = paper[:5]
    first = authors.split(",")[0].replace("{", "").replace("}", "").replace('\\"', "").replace("\\", "")
    others = " et al." if " and " in authors else ""
    plain = title.replace("{", "").replace("}", "").replace(":", " -")
    return f"{first}{others} - {year} - {plain}.pdf"


def write(root: Path, pdfs: Path | None) -> int:
    """The research folder at ``root``; the PDFs Zotero stores copied from ``pdfs`` (shared/data/pdf/en) when
    given. Returns the number of files written."""
    files = {"library.bib": "% Exported by Better BibTeX for Zotero\n\n"
             "@string{jmlr = {Journal of Machine Learning Research}}\n\n" + "\n".join(map(bibtex, PAPERS)),
             "thesis/main.tex": MAIN, "thesis/refs.bib": REFS}
    files.update({f"thesis/chapters/{name}.tex": text for name, text in CHAPTERS.items()})
    files.update({f"notes/{name}": text for name, text in NOTES.items()})
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    (root / "Zotero").mkdir(parents=True, exist_ok=True)
    (root / "Zotero" / "zotero.sqlite").write_bytes(b"SQLite format 3\x00" + bytes(4096))
    count = len(files) + 1
    if pdfs is not None:
        for paper in PAPERS:
            if paper[0] not in STORED:
                continue
            folder, source = STORED[paper[0]]
            target = root / "Zotero" / "storage" / folder
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy(pdfs / source, target / pdf_name(paper))
            (target / ".zotero-ft-cache").write_text(paper[2] + "\n" + paper[6], encoding="utf-8")
            count += 1
    return count


# question, the answers: a file's path (its end), or 'path#key' for a .bib entry (the hit's heading names the key)
QUESTIONS = [
    ("what did Vaswani 2017 propose", ["library.bib#vaswani2017attention", "notes/attention.md"]),
    ("find the entry with DOI 10.18653/v1/N19-1423", ["library.bib#devlin2019bert"]),
    ("10.1162/neco.1997.9.8.1735", ["library.bib#hochreiter1997lstm"]),
    ("where in my thesis do I cite smith2020", ["chapters/intro.tex", "chapters/related.tex",
                                                  "chapters/experiments.tex"]),
    ("my notes on @vaswani2017attention", ["notes/attention.md"]),
    ("the paper by Müller on graph attention", ["library.bib#mueller2021graph"]),
    ("section on related work in my thesis", ["chapters/related.tex"]),
    ("Schölkopf causal representation learning", ["library.bib#schoelkopf2021causal", "notes/causality.md"]),
    ("which papers are about dense retrieval", ["library.bib#karpukhin2020dpr", "notes/dpr.md"]),
    ("jegou2011pq", ["library.bib#jegou2011pq", "notes/ann-indexes.md"]),
    ("García federated averaging non-IID", ["library.bib#garcia2019federated"]),
    ("what optimizer and learning rate did I use in my experiments", ["chapters/experiments.tex"]),
    ("research questions of my thesis", ["chapters/intro.tex"]),
    ("limitations and future work", ["chapters/conclusion.tex"]),
    ("BM25 probabilistic relevance framework", ["library.bib#robertson2009bm25", "thesis/refs.bib"]),
    ("my notes on retrieval-augmented generation", ["notes/rag.md"]),
    ("@karpukhin2020dpr", ["library.bib#karpukhin2020dpr", "notes/dpr.md", "notes/rag.md"]),
    ("Dupont benchmark for scientific claim verification", ["library.bib#dupont2022claims"]),
    ("hierarchical navigable small world graphs", ["library.bib#malkov2020hnsw", "notes/ann-indexes.md"]),
    ("where do I define the contrastive loss", ["chapters/method.tex"]),
    ("dataset statistics table", ["chapters/experiments.tex"]),
    ("papers by Łukasz Kaiser", ["library.bib#vaswani2017attention"]),
    ("papers with keyword transformer", ["library.bib#vaswani2017attention", "library.bib#devlin2019bert",
                                         "library.bib#raffel2020t5"]),
    ("ablation of the re-ranker", ["chapters/experiments.tex"]),
    ("abstract of my thesis", ["thesis/main.tex"]),
    ("Jürgen Schmidhuber long short-term memory", ["library.bib#hochreiter1997lstm"]),
    ("counterfactual explanations black box", ["library.bib#wachter2018counterfactual"]),
]
