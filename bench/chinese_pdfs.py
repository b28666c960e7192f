"""A bilingual researcher's questions about Chinese PDFs and mixed Chinese-English notes: where the file asked
about ranks, and whether its page is the one asked for.

Writes its own corpus (in --data, else a temporary folder): six PDFs made here (a two-column Chinese paper with a
journal header and '第 N 页 共 M 页' footers, a survey, a Traditional Chinese paper with '第 N 頁，共 M 頁', a
thesis chapter, a slide deck, an English paper with a Chinese abstract), their lines wrapped at a fixed width as a
PDF's are, drawn in a Type0 font through its ToUnicode map (tests/test_pdf_parser.py's ``cjk_pages``, no font file
needed), and seven notes citing them. Indexes it through the real pipeline (bench/quality.py's ``build_index``),
asks each question in hybrid search, and prints whether the file asked about (or a note that answers it) came
first and among the first five, whether the PDF's page asked for is the one its hit names, and how many snippets
show a page's footer ('第 1 页 共 3 页') or a space at a wrapped line before a full-width mark ('差异 ，例如').

    .venv/bin/python bench/chinese_pdfs.py [--home DIR] [--data DIR]
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from quality import build_index  # noqa: E402
from tests.test_pdf_parser import cjk_pages  # noqa: E402

WIDTH, COLUMN = 96, 46  # columns of a page's line and of a two-column paper's column (a CJK character two)

P1 = "论文/基于BM25与稠密向量的混合检索方法研究.pdf"
P2 = "论文/知识图谱问答研究综述.pdf"
P3 = "论文/繁體中文斷詞之條件隨機場方法.pdf"
P4 = "论文/Cross-lingual Dense Retrieval for Chinese-English Patents.pdf"
T = "thesis/第三章 实验设计.pdf"
S = "slides/组会汇报-2024-03-15.pdf"
N1, N2, N3 = "notes/文献笔记/张伟2023-混合检索.md", "notes/文献笔记/KBQA综述-李娜.md", "notes/文献笔记/Cross-lingual patents.md"
N4, N5, N6, N7 = "notes/筆記/斷詞實驗.md", "notes/组会/2024-03-15 组会记录.md", "notes/想法/research ideas.md", "notes/开题报告.md"



def lines(*texts: str) -> list[str]:
    """Blocks that are each a line of their own (a title block's)."""
    return [f"# {text}" for text in texts]


# Each PDF: (header on the pages after the first, footer with {n} and {of}, pages of blocks); a block starting
# '# ' is a line of its own, one starting '| ' a paragraph wrapped in a column's width, any other a paragraph.
PDFS = {
    P1: ("计算机学报 2023年 第46卷 第5期", "第 {n} 页 共 {of} 页", [
        [*lines("基于BM25与稠密向量的混合检索方法研究", "张伟 刘洋", "清华大学 计算机科学与技术系，北京 100084", "摘要"),
         "稀疏检索（如 BM25）擅长精确匹配专有名词和术语，而稠密检索（dense retrieval）能够捕捉语义相似性。本文提出一种混合检索方法，"
         "使用倒数排序融合（Reciprocal Rank Fusion, RRF）将两路结果合并，融合常数 k 取 60。在 MS MARCO 中文子集上，混合检索的 "
         "MRR@10 达到 0.412，比单独使用 BM25 提高了 7.3 个百分点。", "# 关键词：混合检索；倒数排序融合；稠密向量；中文分词", "# 1 引言",
         "| 随着大语言模型的发展，检索增强生成（RAG）成为知识密集型任务的主流范式。检索质量直接决定了生成答案的可靠性。传统的倒排索引方法"
         "依赖词项匹配，对于中文文本，需要先进行分词处理，分词错误会直接导致召回失败。本文使用 jieba 分词，并对比了按字切分与二元组"
         "（bigram）切分的效果。实验表明，二元组切分在专有名词上的召回率比 jieba 分词高 4.1 个百分点，但索引体积增加了约 2.3 倍。",
         "| 稠密检索使用双塔编码器（dual encoder）将查询和文档映射到同一向量空间，通过近似最近邻搜索（ANN）召回候选文档。然而稠密检索"
         "在处理数字、型号、人名等精确信息时表现不佳。", "# 2 相关工作",
         "| 早期的混合方法采用线性插值，需要对两路分数进行归一化，对分数分布敏感。Cormack 等人于 2009 年提出的 RRF 只依赖排名，不依赖"
         "分数，因而更加稳健。ColBERT 采用后期交互（late interaction）机制，在效果与效率之间取得平衡，但存储开销较大，每个词元都需要"
         "保存一个 128 维的向量。"],
        ["# 3 方法", "我们的系统由三部分组成：第一，BM25 检索器，参数 k1 = 1.2，b = 0.75；第二，稠密检索器，使用 multilingual-e5-base "
         "编码器，向量维度为 768；第三，融合模块，采用 RRF 算法。我们还尝试了加权 RRF，给 BM25 的权重设为 0.7，但效果提升不显著"
         "（MRR@10 仅提高 0.002）。", "# 4 实验",
         "实验在 MS MARCO 中文子集和 DuReader-retrieval 两个数据集上进行。在 DuReader-retrieval 上，混合检索的 Recall@50 为 0.893，"
         "BM25 为 0.781，稠密检索为 0.852。在延迟方面，混合检索每次查询平均耗时 38 毫秒，其中向量检索占 61%。"],
        ["# 5 结论", "本文验证了 BM25 与稠密向量混合检索在中文场景下的有效性。未来工作包括引入重排序模型（cross-encoder reranker）。",
         "# 参考文献", "# [1] Robertson S, Zaragoza H. The probabilistic relevance framework: BM25 and beyond[J]. 2009.",
         "# [2] Cormack G V, et al. Reciprocal rank fusion outperforms condorcet[C]. SIGIR, 2009.",
         "# [3] Karpukhin V, et al. Dense passage retrieval for open-domain question answering[C]. EMNLP, 2020.",
         "# [4] 孙茂松, 等. 中文分词技术综述[J]. 中文信息学报, 2015."]]),
    P2: ("中文信息学报 · 综述", "第 {n} 页 共 {of} 页", [
        [*lines("知识图谱问答研究综述", "李娜", "北京大学 王选计算机研究所", "摘要"),
         "知识图谱问答（Knowledge Base Question Answering, KBQA）旨在利用结构化知识回答自然语言问题。本文将现有方法分为基于语义解析"
         "（semantic parsing）的方法和基于信息检索的方法两大类。", "# 1 基于语义解析的方法",
         "语义解析方法将问题转换为逻辑形式，例如 SPARQL 查询，然后在知识图谱上执行。这类方法可解释性强，但需要大量标注的逻辑形式，"
         "标注成本高。复杂问题（多跳、比较、计数）的解析准确率明显低于简单问题。"],
        ["# 3 错误分析", "我们对 CCKS2019 上三个代表性系统的 500 个错误样例进行了人工分析。其中实体链接错误占 41%，关系识别错误占 33%，"
         "答案排序错误占 19%。实体链接错误主要来自同名实体消歧，例如“苹果”既可能是水果也可能是公司。", "# 4 未来方向",
         "大语言模型为 KBQA 带来了新的机会：可以用 LLM 直接生成 SPARQL。但 LLM 存在幻觉（hallucination）问题，生成的查询可能引用"
         "不存在的关系。"],
        ["# 5 总结", "本文系统回顾了知识图谱问答的两类主流方法，并指出实体链接仍是瓶颈。", "# 参考文献",
         "# [1] Berant J, et al. Semantic parsing on Freebase from question-answer pairs[C]. EMNLP, 2013.",
         "# [2] 刘康, 等. 知识图谱问答评测综述[J]. 中文信息学报, 2019."]]),
    P3: ("中華民國計算語言學學會 論文集", "第 {n} 頁，共 {of} 頁", [
        [*lines("繁體中文斷詞之條件隨機場方法", "陳志明", "國立臺灣大學 資訊工程學系", "摘要"),
         "本研究以條件隨機場（Conditional Random Fields, CRF）進行繁體中文斷詞，並以中研院平衡語料庫（Sinica Corpus）進行訓練與測試。"
         "實驗結果顯示，本方法之 F1 值達 95.2%，未登錄詞（OOV）的召回率為 78.6%。", "# 一、緒論",
         "中文書寫時詞與詞之間沒有空白，因此斷詞是中文自然語言處理的第一步。繁體中文與簡體中文在用詞上有所差異，例如「軟體」與「软件」、"
         "「資料庫」與「数据库」，直接套用簡體中文的斷詞模型效果不佳。", "# 二、研究方法",
         "我們採用 BIES 標記法，每個字元標記為詞首（B）、詞中（I）、詞尾（E）或單字詞（S）。"],
        ["# 三、實驗結果", "在中研院平衡語料庫的測試集上，本方法的精確率為 95.8%，召回率為 94.6%。與最大匹配法相比，F1 值提升了 6.4 個"
         "百分點。錯誤主要集中於人名與機構名稱，例如「臺灣積體電路製造公司」被切為多個片段。"]]),
    P4: ("Proceedings of the Patent Retrieval Workshop 2022", "{n}", [
        [*lines("Cross-lingual Dense Retrieval for Chinese-English Patents", "Liu Min, John Smith", "Abstract"),
         "Patent examiners must search prior art written in many languages. We study cross-lingual dense retrieval "
         "between Chinese patent claims and English patent abstracts. Using mContriever fine-tuned on 1.2 million "
         "aligned patent families, we reach a Recall@100 of 0.871, against 0.634 for BM25 over machine-translated "
         "queries.", "# 摘要", "专利审查员需要检索多种语言的现有技术。本文研究中文专利权利要求与英文专利摘要之间的跨语言稠密检索。我们"
         "在 120 万个对齐的专利族上微调 mContriever，Recall@100 达到 0.871，而基于机器翻译查询的 BM25 仅为 0.634。"],
        ["# 2 Method", "We train a shared multilingual encoder with hard negatives mined from the IPC classification. "
         "Training takes 40 hours on eight GPUs.", "# 3 Results", "Hard negatives from the IPC classification add 5.8 "
         "points of Recall@100. Errors concentrate on claims that describe chemical formulas."]]),
    T: ("王芳 硕士学位论文 第三章 实验设计", "第 {n} 页 共 {of} 页", [
        ["# 第三章 实验设计", "# 3.1 数据集构建",
         "本文从中国裁判文书网收集了 2018 年至 2022 年的民事判决书，构建了包含 12,000 条问答对的法律问答数据集 LawQA-zh。每条问答对由"
         "两名法学专业研究生独立标注，标注一致性（Cohen's kappa）为 0.82。", "我们比较了按固定长度切块和按段落切块两种策略，发现按段落切块"
         "在召回率上高出 3.2 个百分点。", "# 3.2 评价指标", "检索阶段采用 nDCG@10 和 Recall@20 作为评价指标；生成阶段采用 ROUGE-L "
         "和人工评价。"],
        ["# 3.3 基线方法", "我们选择以下基线：BM25（使用 jieba 分词）、DPR、ColBERTv2 以及 BGE-large-zh。", "# 3.4 超参数设置",
         "微调时学习率设为 2e-5，批大小（batch size）为 32，最大序列长度为 512。所有实验在一张 NVIDIA A100（80GB）显卡上完成，单次微调"
         "约需 6 小时。"]]),
    S: ("", "长文档检索 · 组会汇报 {n}/{of}", [
        ["# 组会汇报：长文档检索进展", "# 汇报人：王芳", "# 2024 年 3 月 15 日"],
        ["# 本周进展", "# • 完成 LawQA-zh 测试集的人工复核，修正了 137 条标注错误",
         "# • BGE-large-zh 微调后 nDCG@10 从 0.561 提升到 0.634", "# • 混合检索（BM25 + BGE）进一步提升到 0.658"],
        ["# 遇到的问题", "# • 长文档召回率低：超过 8,000 字的判决书，Recall@20 只有 0.41",
         "# • 切块边界会切断法条引用，例如“《民法典》第一千一百六十五条”被拆到两个块中", "# • GPU 显存不足，ColBERTv2 索引需要 140GB"],
        ["# 下一步计划", "# • 把 chunk size 从 512 调到 256，并加入 20% 的重叠（overlap）", "# • 尝试 late chunking 方法"]]),
}

NOTES = {
    N1: "# 张伟2023：基于BM25与稠密向量的混合检索\n\n原文：[[基于BM25与稠密向量的混合检索方法研究.pdf]]\n\n## 核心观点\n"
        "- 用 RRF（Reciprocal Rank Fusion）把 BM25 和 dense retrieval 的结果合并，k=60\n"
        "- MS MARCO 中文子集上 MRR@10 = 0.412，比 BM25 高 7.3 个点\n\n## 我的看法\n"
        "weighted RRF 几乎没有提升。论文第四章可以引用它的 latency 数据（38 ms/query）。\n",
    N2: "# 知识图谱问答综述（李娜）\n\nPDF: [[知识图谱问答研究综述.pdf]]\n\n## 错误分析\n"
        "CCKS2019 上 500 个错误样例：entity linking 41%，relation detection 33%，answer ranking 19%。\n",
    N3: "# Liu & Smith 2022 — Cross-lingual Dense Retrieval for Patents\n\nSource: [[Cross-lingual Dense Retrieval for "
        "Chinese-English Patents.pdf]]\n\nKey result: mContriever fine-tuned on 1.2M patent families, Recall@100 0.871.\n"
        "Hard negatives 来自 IPC 分类，贡献了 5.8 个点。\n",
    N4: "# 繁體中文斷詞實驗筆記\n\n參考：[[繁體中文斷詞之條件隨機場方法.pdf]]\n\n## 結果\n- CRF 在 Sinica Corpus 上 F1 95.2%\n"
        "- 未登錄詞召回率只有 78.6%\n",
    N5: "# 2024-03-15 组会记录\n\n参会：王老师、王芳、陈晨、Alex\n\n## 王芳汇报\n- BGE 微调后 nDCG@10 0.561 → 0.634，hybrid 到 0.658\n"
        "- 长文档问题：Recall@20 只有 0.41\n\n## 陈晨汇报\n- 在做 query rewriting，用 Qwen-7B 改写用户的口语化问题\n\n## 行动项\n"
        "- 王芳：chunk size 改成 256，overlap 20%\n",
    N6: "# Research ideas\n\n## Chunk boundaries and legal citations\nChunking cuts 法条引用 apart (e.g. 《民法典》第一千一百六十五条 "
        "split over two chunks).\n\n## 数据增强\nBack-translation 中→英→中 to make paraphrased questions for LawQA-zh.\n",
    N7: "# 开题报告：面向法律长文档的检索增强生成\n\n## 研究内容\n1. 构建法律问答数据集 LawQA-zh\n2. 混合检索：BM25 + 稠密检索\n\n"
        "## 进度安排\n- 2024 年 3 月：完成数据集\n- 2024 年 6 月：完成检索实验\n",
}

# (question, the files that answer it, the first the one asked about; the page of that PDF, or None)
QUESTIONS = [
    ("倒数排序融合的常数 k 取多少", [P1, N1], 1),
    ("which paper uses RRF with k=60 to fuse BM25 and dense retrieval", [P1, N1], 1),
    ("哪篇论文说 MRR@10 达到 0.412", [P1, N1], 1),
    ("混合检索每次查询平均耗时多少毫秒", [P1, N1], 2),
    ("hybrid retrieval latency per query in milliseconds", [P1, N1], 2),
    ("加权 RRF 给 BM25 的权重", [P1, N1], 2),
    ("DuReader-retrieval 上的 Recall@50", [P1], 2),
    ("ColBERT 每个词元保存多少维的向量", [P1], 1),
    ("二元组切分比 jieba 分词召回率高多少", [P1], 1),
    ("实体链接错误占多少比例", [P2, N2], 2),
    ("entity linking errors share on CCKS2019", [P2, N2], 2),
    ("苹果 同名实体消歧", [P2], 2),
    ("用大语言模型直接生成 SPARQL 的幻觉问题", [P2], 2),
    ("语义解析方法的缺点是什么", [P2], 1),
    ("繁体中文断词 条件随机场", [P3, N4], 1),
    ("台积电的名字被切成多个片段", [P3], 2),
    ("BIES 标记法", [P3], 1),
    ("CRF word segmentation for Traditional Chinese on the Sinica Corpus", [P3, N4], 1),
    ("资料库与数据库的用词差异", [P3], 1),
    ("软体", [P3], 1),
    ("cross-lingual patent retrieval Recall@100", [P4, N3], 1),
    ("专利 跨语言 稠密检索", [P4, N3], 1),
    ("IPC 分类的 hard negatives 提升了多少", [P4, N3], 2),
    ("training takes 40 hours on eight GPUs", [P4], 2),
    ("LawQA-zh 数据集有多少条问答对", [T], 1),
    ("标注一致性 Cohen's kappa", [T], 1),
    ("学习率 2e-5 batch size 32", [T], 2),
    ("论文第三章的超参数设置", [T], 2),
    ("按段落切块和固定长度切块哪个召回率高", [T], 1),
    ("how many question-answer pairs are in the legal QA dataset", [T], 1),
    ("A100 单次微调约需几小时", [T], 2),
    ("长文档召回率低 Recall@20", [S, N5], 3),
    ("《民法典》第一千一百六十五条被拆到两个块", [S, N6], 3),
    ("ColBERTv2 索引需要多少显存", [S], 3),
    ("下一步计划 chunk size 256 overlap", [S, N5], 4),
    ("BGE 微调后 nDCG@10 提升到多少", [S, N5], 2),
    ("陈晨 query rewriting 用的什么模型", [N5], None),
    ("开题报告的进度安排", [N7], None),
    ("back-translation data augmentation for paraphrased questions", [N6], None),
    ("mContriever fine-tuned on patent families", [P4, N3], 1),
]
FOOTER = re.compile(r"第 \d+ [页頁]")
SPACED_MARK = re.compile(r"[\u4e00-\u9fff] [，。、；：）」]|[（「] [\u4e00-\u9fff]")


def columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken anywhere in Chinese and at spaces in Latin words."""
    lines, line = [], ""
    for piece in re.findall(r"[A-Za-z0-9@.,:;'()%=/+-]+ ?|.", text):
        if line and columns(line + piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += piece
    return lines + [line.rstrip()] if line.strip() else lines


def write_corpus(root: Path) -> None:
    for rel, (header, footer, pages) in PDFS.items():
        drawn = []
        for n, blocks in enumerate(pages, 1):
            lines = [header] if header and n > 1 else []
            for block in blocks:
                if block.startswith("# "):
                    lines.append(block[2:])
                else:
                    lines += wrapped(block[2:], COLUMN) if block.startswith("| ") else wrapped(block, WIDTH)
            drawn.append(lines + [footer.format(n=n, of=len(pages))])
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(cjk_pages(drawn))
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="a Sift home to build the index in, or reuse")
    parser.add_argument("--data", type=Path, help="where to write the corpus (default: a temporary folder)")
    args = parser.parse_args()
    data = args.data or Path(tempfile.mkdtemp(prefix="sift-chinese-pdfs-"))
    if not (data / P1).exists():
        write_corpus(data)
    build_index(data, args.home, "research")
    from search.query.engine import from_settings
    from search.settings import load
    engine = from_settings(load())
    engine.warm()
    first = top5 = pages = asked = footers = spaced = 0
    for question, files, page in QUESTIONS:
        hits = engine.search(question, limit=10, mode="hybrid").hits
        paths = [hit.path for hit in hits]
        footers += sum(bool(FOOTER.search(hit.snippet)) for hit in hits)
        spaced += sum(bool(SPACED_MARK.search(hit.snippet)) for hit in hits)
        first += bool(paths) and paths[0] in files
        top5 += any(path in files for path in paths[:5])
        shown = ""
        if page is not None:
            asked += 1
            got = next((hit.page for hit in hits if hit.path == files[0]), None)
            pages += got == page
            shown = f"  page {got} (asked {page})"
        mark = "1" if paths and paths[0] in files else "5" if any(p in files for p in paths[:5]) else "-"
        print(f"{mark} {question} -> {paths[0] if paths else None}{shown}")
    n = len(QUESTIONS)
    print(f"first {first}/{n}, top five {top5}/{n}, the PDF's page asked for {pages}/{asked}; snippets showing a "
          f"page's footer {footers}, a space at a wrapped line before or after a full-width mark {spaced}")


if __name__ == "__main__":
    main()
