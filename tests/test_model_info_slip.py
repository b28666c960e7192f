"""`ingest model info` on a mistyped home: like every other command that only reads, it names the home meant."""


def test_model_info_on_a_slipped_home_names_the_home_meant(tmp_path, monkeypatch, capsys):
    """SIFT_HOME=~/.sfit: `ingest stats` and `ingest search` added 'did you mean the home ~/.sift', while `ingest
    model info` said only that the model was not built yet, and `ingest model prepare` would then have built it
    (100 MB for e5) into the slip's home."""
    from ingest import cli
    from search.index import db
    db.connect(tmp_path / ".sift" / "index.db").close()  # a real index, made as a worker makes it
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / ".sfit"))
    monkeypatch.setenv("SIFT_MODEL", "minilm")  # a name: built in the home
    assert cli.main(["model", "info"]) == 0
    assert capsys.readouterr().out == (
        f"model all-MiniLM-L6-v2: not built yet; `ingest model prepare --model minilm` builds it at "
        f"{tmp_path / '.sfit' / 'models' / 'all-MiniLM-L6-v2.gguf'}; did you mean the home {tmp_path / '.sift'}, "
        "which holds an index?\n")
    assert not (tmp_path / ".sfit").exists(), "a command that only reads makes no home"
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "elsewhere"))
    assert cli.main(["model", "info"]) == 0 and "did you mean" not in capsys.readouterr().out
