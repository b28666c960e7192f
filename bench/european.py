"""A French, Spanish, German, Italian, Portuguese and Russian user's questions about their own notes, often mixed
with English: where the file asked about ranks, per mode.

Writes its own corpus (in --data, else a temporary folder): 72 notes and code files whose words come in other forms
than the questions ask them in (recherche / rechercher / recherches, búsqueda / búsquedas, Suche / suchen, ricerca /
ricerche, pesquisa / pesquisar, поиск / поиска / поиском, ещё / еще), with elisions (l'équipe, d’accord), ß and
ss, and code with comments in those languages. Indexes it through the real pipeline (bench/quality.py's
``build_index``), asks each of its questions in keyword, semantic and hybrid search, and prints, per mode, how often
the file asked about came first, among the first five, the mean reciprocal rank of its first hit (0 past the
tenth), how many query words the spelling note named as held nowhere, and how many first hits' snippets mark nothing.

    .venv/bin/python bench/european.py [--home DIR] [--data DIR] [--modes keyword,semantic,hybrid] [-v]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import corpus_questions  # noqa: E402

NOTES = {
    # French
    "fr/travail/réunion d'équipe 2024-03-12.md": "# Réunion d'équipe du 12 mars\n\nPrésents : Claire, Julien, Amira.\n\n"
    "L'équipe s'est mise d'accord sur le calendrier de la migration. Julien rédigera les spécifications avant vendredi. "
    "Amira s'occupe des tests de charge sur l'environnement de préproduction.",
    "fr/travail/moteur de recherche.md": "# Moteur de recherche interne\n\nNous voulons rechercher dans les comptes rendus et les "
    "contrats. L'index plein texte doit gérer les accents et les pluriels. Premier essai avec SQLite FTS5 : rapide, "
    "mais la racinisation anglaise ne convient pas au français.",
    "fr/travail/facturation.md": "# Facturation des clients\n\nLes factures sont envoyées le premier jour ouvré du mois. "
    "Un client en retard de paiement reçoit une relance automatique au bout de quinze jours.",
    "fr/travail/entretien annuel.md": "# Entretien annuel\n\nObjectifs pour l'année : animer deux ateliers, améliorer la "
    "documentation interne, encadrer le stagiaire. Demander une formation en gestion de projet.",
    "fr/travail/sauvegardes.md": "# Politique de sauvegarde\n\nLes sauvegardes du serveur de fichiers sont faites chaque nuit "
    "à deux heures. On garde sept copies quotidiennes et quatre hebdomadaires. Vérifier la restauration une fois par mois.",
    "fr/maison/recette de la tarte aux pommes.md": "# Tarte aux pommes de ma grand-mère\n\nÉplucher six pommes, les couper "
    "en fines lamelles. Étaler la pâte brisée, disposer les pommes en rosace, saupoudrer de sucre et de cannelle. "
    "Cuire quarante minutes à 180 degrés.",
    "fr/maison/déménagement.md": "# Déménagement à Lyon\n\nCartons à prévoir : une trentaine. Résilier l'abonnement "
    "d'électricité, prévenir la banque et la caisse d'allocations familiales. Le camion est réservé pour le 3 juin.",
    "fr/maison/jardin.md": "# Le jardin au printemps\n\nSemer les tomates sous abri fin mars, repiquer en mai. Les "
    "courgettes aiment le soleil et beaucoup d'eau. Attention aux limaces après la pluie.",
    "fr/lectures/l'étranger.md": "# L'Étranger, Albert Camus\n\nMeursault apprend la mort de sa mère et ne pleure pas. "
    "Le procès juge moins le meurtre que son indifférence. Une écriture sèche, au passé composé.",
    "fr/notes/recherches bibliographiques.md": "# Recherches bibliographiques\n\nJ'ai cherché des articles sur "
    "l'apprentissage automatique appliqué à la santé. Les bases consultées : PubMed et HAL. Beaucoup de résultats "
    "portent sur l'imagerie médicale.",
    "fr/notes/vacances en bretagne.md": "# Vacances en Bretagne\n\nUne semaine à Quimper en août. Visiter la pointe du Raz, "
    "manger des crêpes, prendre le bateau pour l'île de Sein si la mer est calme.",
    "fr/notes/voiture.md": "# Entretien de la voiture\n\nVidange tous les quinze mille kilomètres. Les pneus d'hiver sont "
    "au garage. Le contrôle technique expire en octobre.",
    # Spanish
    "es/trabajo/búsqueda de proveedores.md": "# Búsqueda de proveedores\n\nNecesitamos un proveedor nuevo de embalajes. "
    "Comparamos tres ofertas: precio, plazo de entrega y calidad. La empresa de Valencia es la más barata pero tarda "
    "más.",
    "es/trabajo/informe trimestral.md": "# Informe trimestral\n\nLas ventas del primer trimestre subieron un 8 %. Los "
    "gastos de personal se mantuvieron estables. Hay que revisar las previsiones del segundo semestre.",
    "es/trabajo/contraseñas.md": "# Gestión de contraseñas\n\nCada empleado usa un gestor de contraseñas. Las "
    "contraseñas deben tener al menos doce caracteres y cambiarse si hay sospecha de filtración.",
    "es/trabajo/entrevistas.md": "# Entrevistas de trabajo\n\nPreguntas para los candidatos: experiencia con bases de "
    "datos, trabajo en equipo, cómo resolvieron un conflicto. Entrevistamos a cuatro personas el martes.",
    "es/casa/paella.md": "# Paella valenciana\n\nSofreír el pollo y el conejo, añadir las judías verdes y el garrofón. "
    "Echar el tomate rallado y el pimentón, luego el agua y el azafrán. El arroz se cuece dieciocho minutos sin "
    "removerlo.",
    "es/casa/mudanza.md": "# Mudanza a Madrid\n\nBuscar piso cerca del metro. Presupuesto máximo: novecientos euros "
    "al mes. Visitamos dos pisos en Lavapiés y uno en Chamberí.",
    "es/casa/plantas.md": "# Cuidado de las plantas\n\nRegar los cactus cada dos semanas en verano y una vez al mes en "
    "invierno. El potus necesita luz indirecta.",
    "es/viajes/viaje a méxico.md": "# Viaje a México\n\nCiudad de México, Oaxaca y Puebla en diez días. Probar el mole "
    "poblano, visitar Teotihuacán temprano para evitar el calor.",
    "es/lecturas/cien años de soledad.md": "# Cien años de soledad\n\nLa familia Buendía en Macondo durante siete "
    "generaciones. Los nombres se repiten y la historia parece circular. Realismo mágico.",
    "es/notas/aprendizaje de idiomas.md": "# Aprendizaje de idiomas\n\nEstudio alemán con tarjetas de repaso espaciado "
    "veinte minutos al día. Escuchar pódcasts ayuda con la comprensión oral.",
    "es/notas/salud.md": "# Cita con el médico\n\nAnálisis de sangre en ayunas el jueves. Llevar la tarjeta sanitaria "
    "y la lista de medicamentos.",
    # German
    "de/arbeit/Suche im Archiv.md": "# Suche im Archiv\n\nDie Suche nach alten Verträgen dauert zu lange. Wir haben "
    "gestern zwei Stunden gesucht, bis der Vertrag mit dem Lieferanten gefunden war. Ein Volltextindex würde helfen.",
    "de/arbeit/Besprechung Vertrieb.md": "# Besprechung mit dem Vertrieb\n\nDer Umsatz im Süden ist gestiegen. Die "
    "Kollegen wünschen sich bessere Angebote für Großkunden. Nächste Besprechung am Donnerstag.",
    "de/arbeit/Urlaubsplanung.md": "# Urlaubsplanung\n\nJeder trägt seinen Urlaub bis Ende Januar in den Kalender ein. "
    "Zwischen Weihnachten und Neujahr bleibt das Büro geschlossen.",
    "de/arbeit/Datensicherung.md": "# Datensicherung\n\nDie Sicherungen laufen jede Nacht auf das NAS. Einmal pro Woche "
    "wird eine Kopie außer Haus gelagert. Die Wiederherstellung wurde im März geprüft.",
    "de/arbeit/Rechnungen.md": "# Rechnungen prüfen\n\nEingehende Rechnungen werden von der Buchhaltung geprüft und "
    "innerhalb von vierzehn Tagen bezahlt. Bei Abweichungen den Einkauf fragen.",
    "de/privat/Wohnung Hauptstraße.md": "# Wohnung in der Hauptstraße\n\nDrei Zimmer, Balkon, vierter Stock ohne Aufzug. "
    "Die Miete beträgt 950 Euro warm. Besichtigung am Samstag um elf.",
    "de/privat/Apfelkuchen.md": "# Apfelkuchen\n\nMürbeteig aus Mehl, Butter, Zucker und einem Ei. Die Äpfel schälen, "
    "in Spalten schneiden und auf dem Teig verteilen. Bei 175 Grad fünfzig Minuten backen.",
    "de/privat/Fahrrad.md": "# Fahrrad reparieren\n\nDer Schlauch am Hinterrad hatte ein Loch. Flicken aufgeklebt, "
    "die Kette geölt und die Bremsen nachgestellt.",
    "de/privat/Gesundheit.md": "# Rückenschmerzen\n\nDer Physiotherapeut empfiehlt tägliche Übungen für den unteren "
    "Rücken und mehr Bewegung. Nicht zu lange am Schreibtisch sitzen.",
    "de/lesen/Der Prozess.md": "# Der Prozess, Franz Kafka\n\nJosef K. wird eines Morgens verhaftet, ohne zu wissen "
    "warum. Das Gericht bleibt unerreichbar, die Schuld unbestimmt.",
    "de/notizen/Sprachenlernen.md": "# Sprachen lernen\n\nIch lerne Italienisch mit einer App und einem Tandempartner. "
    "Die Grammatik übe ich mit Lückentexten.",
    # Italian
    "it/lavoro/ricerca di mercato.md": "# Ricerca di mercato\n\nAbbiamo condotto una ricerca sui clienti del nord Italia. "
    "Le interviste mostrano che il prezzo conta meno dell'assistenza. Campione di duecento persone.",
    "it/lavoro/riunione settimanale.md": "# Riunione settimanale\n\nIl gruppo ha discusso i ritardi nella consegna del "
    "progetto. Marco aggiornerà il cronoprogramma entro lunedì.",
    "it/lavoro/documento di progetto.md": "# Documento di progetto\n\nIl documento descrive l'architettura del sistema: "
    "un servizio web, una coda di messaggi e un database relazionale. Va approvato dal responsabile tecnico.",
    "it/lavoro/fatture.md": "# Fatture elettroniche\n\nLe fatture passano dal sistema di interscambio. Controllare il "
    "codice destinatario di ogni cliente prima dell'invio.",
    "it/casa/ragù.md": "# Ragù alla bolognese\n\nSoffritto di cipolla, carota e sedano. Aggiungere la carne macinata, "
    "sfumare con il vino rosso, poi la passata di pomodoro. Cuocere almeno tre ore a fuoco basso.",
    "it/casa/bolletta.md": "# Bolletta della luce\n\nLa bolletta di gennaio è arrivata alta. Confrontare le offerte "
    "dei fornitori e passare a una tariffa a prezzo fisso.",
    "it/viaggi/sicilia.md": "# Viaggio in Sicilia\n\nPalermo, Cefalù e Siracusa. Mangiare gli arancini, salire sull'Etna "
    "con una guida, fare il bagno a San Vito Lo Capo.",
    "it/letture/il nome della rosa.md": "# Il nome della rosa\n\nUn monaco francescano indaga su una serie di morti in "
    "un'abbazia. La biblioteca è un labirinto e il libro proibito è la chiave.",
    "it/appunti/problemi di rete.md": "# Problemi di rete\n\nIl router si disconnette ogni sera. Ho aggiornato il firmware "
    "e cambiato il canale del wifi; il problema sembra risolto.",
    # Portuguese
    "pt/trabalho/pesquisa de satisfação.md": "# Pesquisa de satisfação\n\nA pesquisa com os usuários mostrou que o "
    "aplicativo é lento no login. Setenta por cento responderam ao questionário.",
    "pt/trabalho/reunião de planejamento.md": "# Reunião de planejamento\n\nDefinimos as metas do próximo trimestre. A "
    "equipe de vendas quer um painel com os indicadores diários.",
    "pt/trabalho/contratação.md": "# Contratação de desenvolvedores\n\nAbrimos duas vagas para desenvolvedor backend. "
    "Exigir experiência com filas de mensagens e bancos de dados.",
    "pt/casa/feijoada.md": "# Feijoada\n\nDeixar o feijão preto de molho na véspera. Cozinhar com as carnes salgadas, "
    "linguiça e paio. Servir com arroz, couve e laranja.",
    "pt/casa/orçamento doméstico.md": "# Orçamento doméstico\n\nAluguel, luz, internet e mercado somam dois mil e "
    "quinhentos reais. Guardar dez por cento do salário todo mês.",
    # Russian
    "ru/работа/поиск по документам.md": "# Поиск по документам\n\nНам нужен полнотекстовый поиск по договорам и "
    "протоколам. Стандартный стеммер не понимает русские окончания, поэтому поиском пользоваться неудобно.",
    "ru/работа/совещание.md": "# Совещание отдела\n\nОбсудили сроки запуска нового сервиса. Ещё не решено, кто будет "
    "отвечать за мониторинг. Следующее совещание в понедельник.",
    "ru/работа/отчёт.md": "# Квартальный отчёт\n\nВыручка выросла на двенадцать процентов. Расходы на рекламу "
    "сократили вдвое. Отчёт нужно отправить директору до пятницы.",
    "ru/работа/резервное копирование.md": "# Резервное копирование\n\nКопии базы данных делаются каждую ночь и хранятся "
    "тридцать дней. Восстановление из копии проверяли в феврале.",
    "ru/работа/собеседования.md": "# Собеседования\n\nНа этой неделе провели три собеседования на должность "
    "разработчика. Кандидаты решали задачу на очереди и кэширование.",
    "ru/работа/ошибки в логах.md": "# Ошибки в логах\n\nПосле обновления в логах появились ошибки соединения с базой. "
    "Причина: исчерпан пул соединений. Увеличили размер пула до пятидесяти.",
    "ru/работа/встреча с Ивановым.md": "# Встреча с Ивановым\n\nОбсудили с Сергеем Ивановым поставки на третий "
    "квартал. Договор подпишем в среду.",
    "ru/дом/день рождения Ивана.md": "# День рождения Ивана\n\nИвану исполняется семь лет. Купить конструктор и торт, "
    "позвать друзей Ивана из садика.",
    "ru/дом/борщ.md": "# Борщ\n\nСварить бульон на говядине. Добавить свёклу, капусту, морковь и картофель. "
    "Подавать со сметаной и чесноком.",
    "ru/дом/переезд.md": "# Переезд\n\nИскать квартиру рядом с метро. Бюджет — пятьдесят тысяч в месяц. Договор аренды "
    "на год, залог за один месяц.",
    "ru/дом/ёлка.md": "# Новогодняя ёлка\n\nКупить живую ёлку на ёлочном базаре. Игрушки лежат на антресолях.",
    "ru/чтение/мастер и маргарита.md": "# Мастер и Маргарита\n\nВоланд со свитой приезжает в Москву. Параллельно "
    "идёт роман Мастера о Понтии Пилате. Рукописи не горят.",
    "ru/заметки/изучение английского.md": "# Изучение английского\n\nЗанимаюсь с преподавателем дважды в неделю. "
    "Учу неправильные глаголы и смотрю сериалы с субтитрами.",
    "ru/заметки/здоровье.md": "# Здоровье\n\nСдать анализы крови натощак. Записаться к врачу на следующей неделе.",
    # mixed with English
    "mixed/deploy checklist.md": "# Deploy checklist\n\nAvant chaque mise en production : run the migrations, vérifier "
    "les logs, prévenir l'équipe support. Rollback plan in the wiki.",
    "mixed/kubernetes notes.md": "# Kubernetes notes\n\nDer Cluster läuft auf drei Knoten. Pods werden bei "
    "Speichermangel neu gestartet; set memory limits on every deployment.",
    "mixed/стек проекта.md": "# Стек проекта\n\nBackend на Python, очередь задач — Redis. Frontend: React. "
    "Деплой через GitHub Actions.",
    "mixed/ideas.md": "# Ideas\n\nUn tableau de bord pour les ventes; una herramienta para buscar en las actas; "
    "eine bessere Suche für das Wiki.",
    # code with comments
    "code/recherche.py": "# Recherche plein texte dans les notes.\n\n\ndef rechercher(index, requete):\n"
    "    \"\"\"Renvoie les documents qui contiennent les mots de la requête, triés par pertinence.\"\"\"\n"
    "    mots = requete.lower().split()\n    return sorted(index.trouver(mots), key=lambda d: -d.score)\n",
    "code/busqueda.py": "# Funciones de búsqueda en el catálogo.\n\n\ndef buscar_producto(catalogo, nombre):\n"
    "    \"\"\"Busca productos cuyo nombre contiene el texto dado, sin distinguir mayúsculas.\"\"\"\n"
    "    return [p for p in catalogo if nombre.lower() in p.nombre.lower()]\n",
    "code/suche.py": "# Einfache Suche in einer Liste von Kunden.\n\n\ndef kunde_suchen(kunden, name):\n"
    "    \"\"\"Gibt den ersten Kunden zurück, dessen Name passt; sonst None.\"\"\"\n"
    "    for kunde in kunden:\n        if kunde.name == name:\n            return kunde\n    return None\n",
    "code/ricerca.py": "# Ricerca binaria su una lista ordinata.\n\n\ndef ricerca_binaria(lista, valore):\n"
    "    \"\"\"Restituisce la posizione del valore, oppure -1 se manca.\"\"\"\n    basso, alto = 0, len(lista) - 1\n"
    "    while basso <= alto:\n        medio = (basso + alto) // 2\n        if lista[medio] == valore:\n"
    "            return medio\n        if lista[medio] < valore:\n            basso = medio + 1\n        else:\n"
    "            alto = medio - 1\n    return -1\n",
    "code/poisk.py": "# Поиск пользователя по электронной почте.\n\n\ndef find_user(users, email):\n"
    "    \"\"\"Возвращает пользователя или None; сравнение без учёта регистра.\"\"\"\n"
    "    email = email.lower()\n    return next((u for u in users if u.email.lower() == email), None)\n",
    "code/kesh.py": "# Кэширование ответов внешнего API.\n\nCACHE_TTL = 300  # время жизни кэша в секундах\n\n\n"
    "def cached(fetch, key, store):\n    # если значение есть в кэше, возвращаем его\n    if key in store:\n"
    "        return store[key]\n    store[key] = fetch(key)\n    return store[key]\n",
    "code/sauvegarde.sh": "#!/bin/sh\n# Sauvegarde quotidienne de la base de données vers le NAS.\n"
    "pg_dump notes > /mnt/nas/sauvegarde-$(date +%F).sql\n# Supprimer les sauvegardes de plus de sept jours\n"
    "find /mnt/nas -name 'sauvegarde-*.sql' -mtime +7 -delete\n",
    "code/wiederholen.py": "# Wiederholt eine Anfrage bei Zeitüberschreitung.\n\nMAX_VERSUCHE = 5\n\n\n"
    "def mit_wiederholung(anfrage):\n    for versuch in range(MAX_VERSUCHE):\n        try:\n            return anfrage()\n"
    "        except TimeoutError:\n            continue  # nächster Versuch\n    raise RuntimeError('zu viele Versuche')\n",
}

QUESTIONS = [
    # (question, the file that should come first)
    ("équipe d'accord calendrier migration", "fr/travail/réunion d'équipe 2024-03-12.md"),
    ("l'equipe migration", "fr/travail/réunion d'équipe 2024-03-12.md"),
    ("recherches plein texte accents", "fr/travail/moteur de recherche.md"),
    ("relance factures en retard", "fr/travail/facturation.md"),
    ("sauvegarde restauration", "fr/travail/sauvegardes.md"),
    ("tarte pomme cannelle", "fr/maison/recette de la tarte aux pommes.md"),
    ("déménager carton camion", "fr/maison/déménagement.md"),
    ("recherche bibliographique santé", "fr/notes/recherches bibliographiques.md"),
    ("pneu hiver vidange", "fr/notes/voiture.md"),
    ("buscar proveedor embalaje", "es/trabajo/búsqueda de proveedores.md"),
    ("contraseña gestor", "es/trabajo/contraseñas.md"),
    ("entrevista candidato", "es/trabajo/entrevistas.md"),
    ("paella arroz azafrán", "es/casa/paella.md"),
    ("piso metro presupuesto", "es/casa/mudanza.md"),
    ("regar cactus", "es/casa/plantas.md"),
    ("Suche alter Vertrag", "de/arbeit/Suche im Archiv.md"),
    ("suchen Verträge Lieferant", "de/arbeit/Suche im Archiv.md"),
    ("Hauptstrasse Wohnung Miete", "de/privat/Wohnung Hauptstraße.md"),
    ("Rechnung prüfen Buchhaltung", "de/arbeit/Rechnungen.md"),
    ("Sicherung Wiederherstellung", "de/arbeit/Datensicherung.md"),
    ("Apfel Kuchen backen", "de/privat/Apfelkuchen.md"),
    ("ricerche clienti", "it/lavoro/ricerca di mercato.md"),
    ("documenti architettura sistema", "it/lavoro/documento di progetto.md"),
    ("problema router", "it/appunti/problemi di rete.md"),
    ("fattura codice destinatario", "it/lavoro/fatture.md"),
    ("bollette luce", "it/casa/bolletta.md"),
    ("pesquisar satisfação usuário", "pt/trabalho/pesquisa de satisfação.md"),
    ("vaga desenvolvedores", "pt/trabalho/contratação.md"),
    ("поиска по договору", "ru/работа/поиск по документам.md"),
    ("полнотекстовым поиском", "ru/работа/поиск по документам.md"),
    ("еще не решено мониторинг", "ru/работа/совещание.md"),
    ("отчет директору", "ru/работа/отчёт.md"),
    ("ошибка соединения пул", "ru/работа/ошибки в логах.md"),
    ("собеседование разработчик", "ru/работа/собеседования.md"),
    ("копии базы восстановление", "ru/работа/резервное копирование.md"),
    ("квартира метро аренда", "ru/дом/переезд.md"),
    ("елка игрушки", "ru/дом/ёлка.md"),
    ("свекла капуста", "ru/дом/борщ.md"),
    ("глагол сериал", "ru/заметки/изучение английского.md"),
    ("время жизни кэша", "code/kesh.py"),
    ("поиск пользователей по почте", "code/poisk.py"),
    ("búsqueda de productos catálogo", "code/busqueda.py"),
    ("suchen Kunden Liste", "code/suche.py"),
    ("ricerca binaria", "code/ricerca.py"),
    ("Versuch wiederholen Zeitüberschreitung", "code/wiederholen.py"),
    ("Speicher limits Knoten", "mixed/kubernetes notes.md"),
    # every word in another form than the note's
    ("договоры протоколы", "ru/работа/поиск по документам.md"),
    ("собеседования кандидатов", "ru/работа/собеседования.md"),
    ("расходов на рекламу", "ru/работа/отчёт.md"),
    ("сметана чеснок", "ru/дом/борщ.md"),
    ("преподаватель субтитры", "ru/заметки/изучение английского.md"),
    ("interviste cliente", "it/lavoro/ricerca di mercato.md"),
    ("ritardo consegne", "it/lavoro/riunione settimanale.md"),
    ("fattura elettronica", "it/lavoro/fatture.md"),
    ("Rechnung bezahlen", "de/arbeit/Rechnungen.md"),
    ("Kollege Angebot", "de/arbeit/Besprechung Vertrieb.md"),
    ("Übung Rücken", "de/privat/Gesundheit.md"),
    ("previsión semestre", "es/trabajo/informe trimestral.md"),
    ("contratar desenvolvedor", "pt/trabalho/contratação.md"),
    # a word whose stem changes, a surname, an Italian word in a query that shows no language
    ("ошибок", "ru/работа/ошибки в логах.md"),
    ("Иванов", "ru/работа/встреча с Ивановым.md"),
    ("договор с Ивановым", "ru/работа/встреча с Ивановым.md"),
    ("finden", "de/arbeit/Suche im Archiv.md"),
    ("ricerche", "it/lavoro/ricerca di mercato.md"),
]


def write_corpus(root: Path) -> None:
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    corpus_questions.main(__doc__, "european", "ru", write_corpus, QUESTIONS)
