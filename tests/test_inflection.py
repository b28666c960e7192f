"""Words in other forms than the notes write them, by keyword search: Russian (поиска for поиск, еще for ещё), and
German, Italian, Spanish, Portuguese in a query that shows its language (Rechnung for Rechnungen)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from search.query.engine import Engine
from search.query.inflection import compound_parts, latin_forms, query_languages, russian_forms, surnames
from search.query.keyword import distinct_forms, held_forms
from search.query.text import index_form, normalise, query_words, written_words
from tests.conftest import ingest, write_tree

RUSSIAN = {
    "поиск.md": "# Поиск по документам\n\nНам нужен полнотекстовый поиск по договорам и протоколам.",
    "совещание.md": "# Совещание\n\nЕщё не решено, кто отвечает за мониторинг.",
    "ёлка.md": "# Новогодняя елка\n\nКупить живую елку на базаре.",
    "other.md": "# Queue\n\nThe job queue retries a failed upload three times.",
}


def test_a_russian_word_is_looked_up_in_the_forms_of_its_stem():
    assert russian_forms("поиска")[:5] == ["поиск", "поиски", "поиску", "поиске", "поиском"]
    assert "полнотекстовый" in russian_forms("полнотекстовым")
    assert {"пользователь", "пользователя"} <= set(russian_forms("пользователей"))
    assert {"задача", "задачи"} <= set(russian_forms("задачу"))  # после ч: и, а, не ы, я
    assert "задачы" not in russian_forms("задачу")
    assert russian_forms("ещё") == ["еще"]  # a stop word: its е form only
    assert russian_forms("по") == [] and russian_forms("пул")[:2] == ["пула", "пулы"]
    assert russian_forms("search") == [] and russian_forms("поиск2") == []


def test_english_and_other_query_words_are_unchanged():
    for query in ["running tests fast", "write ahead logging", "Überlagerung 资料 getUser"]:
        assert not any(russian_forms(word) for word in query_words(query)), query
    assert query_words("running tests fast") == ["running", "tests", "fast"]
    # the written words first, then each word's forms, the most used ending of each first
    assert query_words("поиска договору")[:6] == ["поиска", "договору", "поиск", "договор", "поиски", "договора"]


def test_a_vowel_that_comes_and_goes_and_a_surname():
    assert {"ошибка", "ошибки", "ошибкой"} <= set(russian_forms("ошибок")) and "ошибок" in russian_forms("ошибка")
    assert "рынка" in russian_forms("рынок") and "рынок" in russian_forms("рынку")
    assert "копеек" in russian_forms("копейка") and "девушек" in russian_forms("девушки")
    assert "отец" in russian_forms("отца") and "образца" in russian_forms("образец")
    assert surnames("встреча с Ивановым, Иванов и Сергеев, договоров") == {"иванов", "сергеев"}
    assert "иван" not in russian_forms("иванов", surname=True)
    assert {"иванова", "ивановым"} <= set(russian_forms("иванов", surname=True))
    assert {"берлина", "берлином"} <= set(query_words("Берлин"))  # a place of -ин: its forms as before
    assert "иван" not in query_words("отчет Иванов") and "ивановым" in query_words("отчет Иванов")
    assert "договор" in query_words("договоров")  # not a surname: a noun's genitive plural


NAMES = {
    "иван.md": "# Иван\n\nИван Петрович приедет в понедельник с Иваном младшим.",
    "иванов.md": "# Встреча\n\nДоговорились с Ивановым о сроках поставки.",
    "журнал.md": "# Журнал\n\nСписок ошибок за неделю: таймауты и обрывы соединения.",
}


def test_a_surname_and_a_fleeting_vowel_find_their_notes(immediate, tmp_path, embedder):
    """'Иванов' found the notes about Иван (its -ов cut off as a noun's genitive plural), and 'ошибка' did not find a
    note listing 'ошибок' (the о of the genitive plural is in no other form)."""
    ingest(write_tree(tmp_path / "notes", NAMES))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    engine.warm()
    assert [hit.path for hit in engine.search("Иванов", mode="keyword").hits] == ["иванов.md"]
    answer = engine.search("ошибка", mode="keyword")
    assert [hit.path for hit in answer.hits] == ["журнал.md"] and not answer.unmatched
    assert "**ошибок**" in answer.hits[0].snippet, answer.hits[0].snippet


def test_yo_is_indexed_as_e():
    assert index_form("Ещё ёлка") == "еще елка"


@pytest.fixture(params=["postings", "fts5"])
def russian_engine(request, immediate, tmp_path, embedder):
    ingest(write_tree(tmp_path / "notes", RUSSIAN))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder,
                    keyword_postings=request.param == "postings")
    engine.warm()
    return engine


def test_russian_words_find_the_notes_that_write_them_in_other_forms(russian_engine):
    """'поиска по договору' found nothing by keyword in a note saying 'Поиск по договорам' (the index stems
    English only), and the spelling note said no passage held поиска or договору; 'еще' missed 'Ещё'."""
    for query, expected in [("поиска по договору", "поиск.md"), ("полнотекстовым поиском", "поиск.md"),
                            ("еще не решено", "совещание.md"), ("ёлку", "ёлка.md"), ("протоколы", "поиск.md")]:
        answer = russian_engine.search(query, mode="keyword")
        assert [hit.path for hit in answer.hits][:1] == [expected], query
        assert not answer.unmatched, (query, answer.unmatched)
        assert "**" in answer.hits[0].snippet, query
    assert [hit.path for hit in russian_engine.search("queue", mode="keyword").hits] == ["other.md"]


def test_a_latin_word_gets_the_forms_of_the_language_its_query_shows():
    assert query_languages("ricerche della clientela") == {"it"} and query_languages("rechnung prüfen") == {"de"}
    assert query_languages("sicherung") == {"de"} and query_languages("pesquisar satisfação") == {"pt"}
    assert "ricerca" in latin_forms("ricerche", frozenset({"it"}))
    assert {"rechnungen", "gesucht"} <= set(latin_forms("rechnung", frozenset({"de"}))
                                            + latin_forms("suchen", frozenset({"de"})))
    assert {"pesquisa", "contratacao"} <= set(latin_forms("pesquisar", frozenset({"pt"}))
                                              + latin_forms("contratar", frozenset({"pt"})))
    assert latin_forms("ricerche", frozenset()) == []


def test_english_queries_show_no_other_language():
    """'il' (IL-6), 'non', 'von' (von Willebrand), 'Los Angeles', 'lung' and 'young' are English queries' words."""
    for query in ["IL-6 and non-toxic goitre", "von Willebrand factor", "Los Angeles per day", "lung cancer in young",
                  "the national association of example.com", "data taken from school records"]:
        assert query_languages(normalise(query)) == frozenset(), query
        assert query_words(query) == written_words(query), query


def test_forms_that_the_index_stems_alike_count_once():
    """'rechnunge' is 'rechnung' to Porter's rules: counted once for each form, 'Rechnung' outweighed the query's
    other words."""
    words = ["rechnung", "prüfen", "rechnunge", "pruf", "rechnungen"]
    tokens = [("rechnung",), ("prufen",), ("rechnung",), ("pruf",), ("rechnungen",)]
    assert [w for w, _ in distinct_forms(words, tokens, {"rechnung", "prüfen"})] == \
        ["rechnung", "prüfen", "pruf", "rechnungen"]
    assert [w for w, _ in distinct_forms(["a", "a"], [("a",), ("a",)], {"a"})] == ["a", "a"]  # as written: twice


GERMAN_ITALIAN = {
    "rechnungen.md": "# Eingang\n\nEingehende Rechnungen werden von der Buchhaltung bezahlt.",
    "ricerca.md": "# Mercato\n\nAbbiamo condotto una ricerca sui clienti del nord.",
    "other.md": "# Queue\n\nThe job queue retries a failed upload three times.",
    "serveur.md": "# Serveur\n\nL'index, l'application, l'environnement, l'API et l'authentification.",
    "réunion.md": "# Lundi\n\nNotre équipe se réunit le lundi matin.",
}


@pytest.fixture(params=["postings", "fts5"])
def latin_engine(request, immediate, tmp_path, embedder):
    ingest(write_tree(tmp_path / "notes", GERMAN_ITALIAN))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder,
                    keyword_postings=request.param == "postings")
    engine.warm()
    return engine


def test_german_and_italian_words_find_the_notes_that_write_them_in_other_forms(latin_engine):
    """'Rechnung' found nothing by keyword in a note saying 'Rechnungen' (Porter's rules leave -en), and the
    spelling note said no passage held it; nor 'ricerche' a note saying 'ricerca'."""
    for query, expected in [("Rechnung für Buchhaltung", "rechnungen.md"), ("Sicherung Rechnung", "rechnungen.md"),
                            ("ricerche della clientela", "ricerca.md")]:
        answer = latin_engine.search(query, mode="keyword")
        assert [hit.path for hit in answer.hits][:1] == [expected], query
        assert not [w for w in answer.unmatched if w["word"].lower() in ("rechnung", "ricerche")], answer.unmatched
    assert [hit.path for hit in latin_engine.search("queue", mode="keyword").hits] == ["other.md"]


def test_a_word_no_passage_holds_is_looked_up_in_the_forms_the_index_holds(latin_engine):
    """'ricerche clienti' shows no language (no accent, no telltale word), so 'ricerche' was looked up as written
    only, which no note holds: the spelling note named it and the note saying 'ricerca' ranked by 'clienti' alone.
    A word no passage holds is now looked up in its German, Spanish, Italian, Portuguese forms that some passage
    holds; a word the index holds ('queue', 'retries') gets none, so English queries search as before."""
    for query, expected, marked in [("ricerche", "ricerca.md", "**ricerca**"),
                                     ("rechnung bezahlt", "rechnungen.md", "**Rechnungen**")]:
        answer = latin_engine.search(query, mode="keyword")
        assert [hit.path for hit in answer.hits][:1] == [expected], query
        assert not answer.unmatched, (query, answer.unmatched)
        assert marked in answer.hits[0].snippet, answer.hits[0].snippet
    answer = latin_engine.search("queue retrying uploadz", mode="keyword")
    assert [hit.path for hit in answer.hits] == ["other.md"]
    assert [w["word"] for w in answer.unmatched] == ["uploadz"]


def test_held_forms_asks_the_index_only_of_words_it_holds_nowhere():
    held = {"ricerca": 3, "queue": 5, "clienti": 2}
    tokens = lambda words: [(w,) for w in words]  # noqa: E731  (no stemming: the words are their own tokens)
    assert held_forms("ricerche clienti", tokens, lambda t: held.get(t, 0)) == {"ricerche": ["ricerca"]}
    assert held_forms("queue clienti", tokens, lambda t: held.get(t, 0)) == {}
    assert held_forms("ricerche della clientela", tokens, lambda t: held.get(t, 0)) == {}  # Italian: in query_words


def test_a_stem_that_changes():
    """German strong verbs (a short table), Spanish ue/ie for o/e, qu for c, and a few nouns of a verb."""
    de, es = frozenset({"de"}), frozenset({"es"})
    assert {"finden", "fand"} <= set(latin_forms("gefunden", de)) and "gefunden" in latin_forms("finden", de)
    assert "aufschreiben" in latin_forms("aufgeschrieben", de) and "beschreiben" in latin_forms("beschrieben", de)
    assert "stehen" in latin_forms("standen", de) and "verbieten" in latin_forms("verbot", de)
    assert "buscar" in latin_forms("búsqueda", es) and "busqueda" in latin_forms("buscar", es)
    assert "probar" in latin_forms("prueba", es) and "encontrar" in latin_forms("encuentro", es)
    assert "pagar" in latin_forms("pague", es) and "pensar" in latin_forms("piensa", es)


STEMS = {
    "vertrag.md": "# Archiv\n\nDer alte Vertrag wurde gestern im Keller gefunden.",
    "proveedores.md": "# Proveedores\n\nLa búsqueda de un proveedor nuevo de embalajes.",
    "other.md": "# Queue\n\nThe job queue retries a failed upload three times.",
}


def test_a_changed_stem_finds_its_note(immediate, tmp_path, embedder):
    """'finden' found no note saying 'gefunden', nor 'buscar' one saying 'búsqueda': no ending rule joins them."""
    ingest(write_tree(tmp_path / "notes", STEMS))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    engine.warm()
    for query, expected in [("finden", "vertrag.md"), ("buscar", "proveedores.md"), ("Vertrag finden", "vertrag.md")]:
        answer = engine.search(query, mode="keyword")
        assert [hit.path for hit in answer.hits] == [expected] and not answer.unmatched, (query, answer.unmatched)


COMPOUNDS = {
    "beleg.md": "# Belege\n\nDie Rechnungsnummer steht oben rechts.",
    "backen.md": "# Backen\n\nDer Apfelkuchen braucht fünfzig Minuten.",
    "kunde.md": "# Kunde\n\nDer Kunde hat eine neue Nummer, die Rechnung eine alte.",
    "other.md": "# Queue\n\nThe job queue retries a failed upload three times.",
}


def test_a_german_compound_is_found_by_its_words_and_its_words_by_the_compound(immediate, tmp_path, embedder):
    """'Apfel Kuchen' found no note saying 'Apfelkuchen' (the index holds the compound as one word), nor
    'Rechnung Nummer prüfen' the note saying 'Rechnungsnummer', nor 'Kundennummer' a note saying 'Kunde' and
    'Nummer'; the spelling note named the words as held nowhere."""
    ingest(write_tree(tmp_path / "notes", COMPOUNDS))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    engine.warm()
    answer = engine.search("Apfel Kuchen", mode="keyword")
    assert [hit.path for hit in answer.hits] == ["backen.md"] and not answer.unmatched, answer.unmatched
    assert "beleg.md" in [hit.path for hit in engine.search("Rechnung Nummer prüfen", mode="keyword").hits]
    answer = engine.search("Kundennummer", mode="keyword")
    assert [hit.path for hit in answer.hits] == ["kunde.md"] and not answer.unmatched, answer.unmatched
    linked = compound_parts("rechnungsnummer", joined=False)  # English writes paracortical: no split without a link
    assert ("rechnung", "nummer") in linked and ("rechnungs", "nummer") not in linked
    assert ("para", "cortical") not in compound_parts("paracortical", joined=False)


def test_french_and_italian_elisions_are_no_words_of_their_own():
    assert written_words("l'équipe d’accord qu'il dell'anno") == ["équipe", "accord", "il", "anno"]
    assert query_words("don't O'Brien Alzheimer's") == ["don", "t", "o", "brien", "alzheimer", "s"]  # as before
    from search.query.snippet import snippet
    assert snippet("L'équipe s'est mise d'accord sur l'environnement.", "l'équipe d'accord") == \
        "L'**équipe** s'est mise d'**accord** sur l'environnement."


def test_an_elided_article_finds_no_passage_by_itself(latin_engine):
    """'l'équipe' was searched as 'l' and 'équipe': a note full of l' (l'index, l'API …) that never says équipe
    came up beside the one that does."""
    assert [hit.path for hit in latin_engine.search("l'équipe", mode="keyword").hits] == ["réunion.md"]


TITLED = {
    "поиск.md": "# Поиск документов\n\n" + "Как устроен индекс: токены, стемминг, ранжирование, кэш, очередь. " * 8,
    "журнал.md": "# Журнал\n\nПоиска документов ждали. Поиска документов просили. Документов нет.",
}


def test_a_title_holding_the_query_words_in_other_forms_comes_first(immediate, tmp_path, embedder):
    """The note titled 'Поиск документов' came below a log repeating 'поиска документов' for that query: titles
    holding every word of the query come first, and a Russian title held them in another form."""
    ingest(write_tree(tmp_path / "notes", TITLED))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    engine.warm()
    answer = engine.search("поиска документов", mode="keyword")
    assert list(dict.fromkeys(hit.path for hit in answer.hits)) == ["поиск.md", "журнал.md"], [(h.path, h.score) for h in answer.hits]


def test_an_english_typo_is_no_other_languages_form_of_a_held_word():
    """A word no passage holds, one edit from the word the most passages hold, is a typo of it, not another
    language's form: 'reprot' was looked up as 'repro' (Spanish/Italian/German cuts), 'unisntall' as 'unis' + 'tall'
    (a German compound's parts), 'kubernetse' as 'kubernetes' (swapped letters: no language's ending), none of them
    named by the spelling note; 'commist' keeps 'commit' (the near word most held is that form), 'fatture' keeps
    'fattura', and a word held nowhere one edit away ('ricerche') keeps its forms."""
    held = {"report": 40, "repro": 1, "reproe": 1, "uninstall": 9, "unis": 1, "tall": 2, "commit": 30,
            "ricerca": 3, "clienti": 2, "fattura": 4, "kubernetes": 5}
    tokens = lambda words: [(w,) for w in words]  # noqa: E731
    documents = lambda t: held.get(t, 0)  # noqa: E731
    assert held_forms("reprot generation", tokens, documents) == {}
    assert held_forms("unisntall homebrew", tokens, documents) == {}
    assert held_forms("commist history", tokens, documents) == {"commist": ["commit"]}
    assert held_forms("kubernetse fatture", tokens, documents) == {"fatture": ["fattura"]}
    assert held_forms("ricerche clienti", tokens, documents) == {"ricerche": ["ricerca"]}


TYPOS = {
    "report.md": "# Weekly report\n\nThe report generation job runs on Monday.",
    "repro.md": "# Bug\n\nA minimal repro of the crash.",
    "quotes.md": "# Strings\n\nHe is six feet tall, she said.",
    "brew.md": "# Homebrew\n\nTo uninstall a formula, run brew uninstall.",
}


def test_an_english_typo_gets_the_spelling_note_not_another_words_hits(immediate, tmp_path, embedder):
    """'reprot' found the note on a 'repro', and 'unisntall' the note on 'tall' (a
    compound split 'unis' + 'tall'), and the spelling note, taking the typo as found, offered no correction."""
    ingest(write_tree(tmp_path / "notes", TYPOS))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    engine.warm()
    answer = engine.search("reprot", mode="keyword")
    assert "repro.md" not in [hit.path for hit in answer.hits], answer.hits
    assert [(w["word"], w["suggestion"]) for w in answer.unmatched] == [("reprot", "report")], answer.unmatched
    answer = engine.search("unisntall", mode="keyword")
    assert "quotes.md" not in [hit.path for hit in answer.hits], answer.hits
    assert [(w["word"], w["suggestion"]) for w in answer.unmatched] == [("unisntall", "uninstall")], answer.unmatched
