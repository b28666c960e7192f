"""A novelist's book folder, generated: chapters (English, and Chinese drafts beside some), characters with
aliases, research clippings, a timeline, decisions and daily writing logs, as bench/writer.py asks about.

The passages the questions are about are written out below; the long chapters are grown to 10,000+ words
with paragraphs drawn (seeded) from pools of the book's own sentences, as a draft's middle is.
"""
from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

DAY = 86400

FILLER = [
    "The kitchen smelled of tar and boiled coffee, and the window over the sink had been mended with putty so often that it was more putty than glass.",
    "Somewhere below the house the nets were drying on their poles, stiff with salt, and a child's boot lay forgotten on the slipway.",
    "She thought of Xiamen, of the banyan outside her grandmother's door, and then made herself stop, because thinking of it did nothing but make the room colder.",
    "Brekke kept the ledger in a hand so small that the entries looked like a column of ants marching toward the binding.",
    "The island had eleven houses, one shop, a chapel without a priest and a telephone that worked on Tuesdays.",
    "Her Norwegian was still a thing she carried in both hands, careful not to spill it.",
    "He said nothing for a long time, and she had learned by now that his silences were not empty but furnished, like a room someone meant to come back to.",
    "The gulls had taken the roof of the boathouse for their parliament and argued there from first light.",
    "On the table lay the chart of the sound, weighted at its corners with a cup, a stone, a tin of tobacco and a Bible nobody opened.",
    "In the evenings the women of the island knitted in the shop because the shop had the only stove that drew properly.",
    "Mei would have laughed at her, at the woollen stockings and the borrowed oilskin and the way she now said ja without thinking.",
    "The path to the north end ran between heather and bare rock, and in places someone had laid planks across the bog and then forgotten them.",
    "It was the kind of cold that got into the hinges of things, so that every door on the island complained when it was opened.",
    "She had counted the steps from the house to the landing so many times that her feet now counted them without her.",
    "The ferry came on Thursdays when it came at all, and the whole island found reasons to be at the landing when it did.",
    "Old photographs of the keepers hung in the passage, stiff men in stiff collars, each of them looking as if he had just been told bad news about the weather.",
    "The wireless in the shop spoke of Suez and of prices in Oslo as if those places were as near as the skerries.",
    "Her hands had gone rough in a month; she looked at them sometimes as if they belonged to another woman she had not yet been introduced to.",
    "There was always something to be carried: paraffin, water, letters, a sack of potatoes, somebody's grief.",
    "The priest came from the mainland once a month and ate as if the island's food were a penance he had been assigned.",
    "At low water the seaweed lay on the rocks like wet hair, and the children poked at it with sticks looking for crabs.",
    "She wrote the day's words in the back of her ledger, in Chinese, so that nobody on the island could read over her shoulder.",
    "The wind had a voice for every corner of the house and used all of them at night.",
    "Nobody locked a door on Skarvøy; the doors were shut against weather, not against people.",
    "Halvorsen's boat lay at its mooring with its bow to the wind, patient as a dog.",
    "The coffee was always too strong and always offered, and refusing it was a kind of insult nobody had yet explained to her.",
    "She found she could tell the hour by the light on the wall opposite her bed, the way her mother had told it by the noise of the street.",
    "They talked of fish prices, of a cousin in Tromsø, of whether the new minister knew anything at all about the coast.",
]
SAID = [
    "\"You'll want a better coat than that,\" Brekke said, not unkindly.",
    "\"In Xiamen the sea is warm,\" she said. \"Here it looks at you.\"",
    "\"Ja, ja,\" said the captain, which could mean anything.",
    "\"Eat,\" said Fru Brekke, and pushed the plate nearer.",
    "\"Does your sister write?\" Tomas asked. \"Every week,\" she lied.",
    "\"The sound is not deep,\" Halvorsen said, \"but it is full of opinions.\"",
    "\"You count too much,\" the keeper told her. \"The sea does not care for your arithmetic.\"",
    "\"When the ferry comes,\" she said, \"I will decide.\" \"You said that last Thursday.\"",
]


def _filler(rng: random.Random, words: int) -> list[str]:
    """Paragraphs of a draft's middle, about ``words`` words in all, with scene breaks and dialogue."""
    paragraphs, total = [], 0
    while total < words:
        if rng.random() < 0.12 and paragraphs and paragraphs[-1] != "* * *":
            paragraphs.append("* * *")
            continue
        if rng.random() < 0.25:
            paragraph = rng.choice(SAID)
        else:
            paragraph = " ".join(rng.sample(FILLER, rng.randint(4, 9)))
        paragraphs.append(paragraph)
        total += len(paragraph.split())
    return paragraphs


def _front(**meta) -> str:
    lines = ["---"]
    for key, value in meta.items():
        if isinstance(value, list):
            lines.append(f"{key}: [{', '.join(value)}]")
        else:
            lines.append(f"{key}: {value}")
    return "\n".join(lines + ["---", ""])


def _chapter(number, title, pov, status, parts, rng=None, grow=0, footnotes=(), extra_meta=None):
    """A chapter note: front matter, a title, paragraphs (``parts``; '@' marks where grown text goes), footnote
    definitions at the end."""
    body = []
    for part in parts:
        if part == "@":
            body.extend(_filler(rng, grow))
        else:
            body.append(part)
    meta = dict(title=f'"{title}"', chapter=number, pov=pov, status=status)
    meta.update(extra_meta or {})
    text = _front(**meta) + f"\n# {number}. {title}\n\n" + "\n\n".join(body) + "\n"
    if footnotes:
        text += "\n" + "\n".join(f"[^{key}]: {value}" for key, value in footnotes) + "\n"
    return text


CH = {}

CH["chapters/01-arrival.md"] = lambda rng: _chapter(1, "Arrival", "Lin", "revised", [
    "The ferry *Nordstjerna* put Lin Wen ashore on Skarvøy on the ninth of October 1958, with one suitcase, a letter of introduction from the Seamen's Mission in Bergen and no idea at all how cold a Norwegian autumn could be. From the rail she had watched the island come up out of the grey like the back of an animal, and at its northern end a white tower that caught the last of the light and held it.",
    "\"Fyr,\" said the deckhand beside her, pointing, and when she did not understand he made a circling gesture with one hand, round and round, a beam going out over the water. She nodded as if she had known all along.",
    "@",
    "* * *",
    "Fru Brekke met her on the landing with a lantern and a look that weighed her, found her light, and decided to feed her anyway. The room she was given had a bed, a washstand, a crucifix and a window that faced the sound, and Lin sat on the bed in her coat until the lamp across the water began to turn.",
], rng=None, grow=0, extra_meta={"setting": "Skarvøy landing", "date": "1958-10-09"})

CH["chapters/02-the-harbour-office.md"] = lambda rng: _chapter(2, "The Harbour Office", "Lin", "revised", [
    "The first time Lin saw Arne Halvorsen he was on his knees in the harbour office with a barometer in pieces on a sheet of newspaper, swearing at it softly in three languages. He did not get up. He looked at her shoes, then at her suitcase, then at her face, in that order, like a man reading a chart from the bottom.",
    "\"You are the Chinese girl from the Mission,\" he said. \"Miss Xiamen.\" It was not a question, and it was the name he would call her by for the rest of his life.",
    "\"Lin,\" she said. \"Lin Wen.\"",
    "\"Halvorsen. I had a ship once. Now I have this.\" He held up the barometer's needle between finger and thumb. \"It says fair. It has said fair for eleven years. It is a liar, like all optimists.\"",
    "* * *",
    "Brekke came in stamping the wet off his boots and explained, at length, that the captain had no business in the office, that the office was the harbourmaster's and not a workshop for retired mariners, and that the barometer was the property of the Directorate. Halvorsen let him finish and then asked Lin, in careful English, whether she played chess.",
], extra_meta={"setting": "harbour office", "date": "1958-10-10"})

CH["chapters/03-the-lamp-room.md"] = lambda rng: _chapter(3, "The Lamp Room", "Lin", "draft", [
    "Tomas Vik climbed the hundred and twelve steps of Skarvøy lighthouse the way other men walked to church, without hurry and without looking at his feet. Lin followed with her hand on the cold rail, counting, and at the top he opened the brass door to the lamp room and stood aside so that she could see the lens.",
    "It was taller than she was, a beehive of glass prisms in a brass cage, and the low sun came through it in bars of colour that lay across the floor and across Tomas's boots. \"Second order,\" he said, with the pride of a man introducing a daughter. \"Made in Paris. It has never once gone dark while I was on watch.\"",
    "She asked how it turned, and he showed her the clockwork, the weights that had to be wound every four hours, the paraffin tank, the mantle. A light is only a promise that someone is awake, he told her, and she wrote the sentence down that night because it seemed to her the truest thing anyone had said to her since Bergen.[^1]",
], footnotes=[("1", "Tomas's line is adapted from a keeper's remark quoted in *Fyrvesenet 1855–1955* (research/norwegian-lighthouse-service.md), p. 41.")],
    extra_meta={"setting": "lighthouse, lamp room"})

CH["chapters/04-the-storm.md"] = lambda rng: _chapter(4, "The Storm", "Lin", "draft", [
    "The storm came up the coast on the night of the second of November and did not leave for three days.",
    "@",
    "* * *",
    "By the second afternoon the rain came sideways, like something thrown rather than fallen, and the whole island went indoors and listened to it. Lin had gone down to the boathouse to see to Halvorsen's lines, because he had asked her to and because she was tired of the kitchen, and she was there when the squall hit and the captain came in after her, soaked to the skin, laughing like a boy. They sat on upturned crates among the smell of tar while the rain hammered the roof, and he told her about the winter of 1940 when he had taken his ship out of Narvik under the German guns with the lights off, and how he had never since been able to sleep through a storm.[^1]",
    "\"You are frightened of it,\" she said, surprised. \"Everyone is frightened of it,\" he said. \"I am only honest.\"",
    "@",
    "* * *",
    "On the third morning the wind dropped to a whole gale and the men went out to count the boats.",
], rng=rng, grow=5200, footnotes=[
    ("1", "Force 10 on the Beaufort scale, 'storm': wind 48–55 knots, very high waves with long overhanging crests. From the Met Office table clipped in research/beaufort-scale.md."),
], extra_meta={"setting": "boathouse; the Brekke house", "date": "1958-11-02"})

CH["chapters/05-letters.md"] = lambda rng: _chapter(5, "Letters", "Lin", "draft", [
    "Lin wrote to Mei every Sunday after chapel, at the kitchen table, in the small careful characters their father had beaten into both of them. The letters went by the Thursday ferry to Bodø, by train to Trondheim and Oslo, by air to London and by the P&O mail boat to Hong Kong, and took five weeks if they arrived at all.[^post]",
    "She did not write about the captain. She wrote about the lens, and the knitting in the shop, and the price of coffee, and she wrote that she was happy, which was nearly true on Sundays.",
    "* * *",
    "Mei's answers came in bundles of three, out of order, so that Lin read of their mother's cough getting better before she read that it had begun.",
], footnotes=[("post", "Route and times from the 1957 Postverket circular on overseas mail, copied in research/letters-and-postage.md. Airmail to Hong Kong was 1 kr 20 per 5 g.")],
    extra_meta={"setting": "the Brekke kitchen"})

CH["chapters/06-night-watch.md"] = lambda rng: _chapter(6, "Night Watch", "Lin", "revised", [
    "Tomas let her take the middle watch with him at the lighthouse for the first time in the week before Advent. They sat in the watch room under the lamp with a pot of coffee on the paraffin stove and every four hours he went up the iron ladder to wind the clockwork, and in between he told her about his brother Einar, who had gone out after herring in the winter of 1931 and not come back.",
    "\"I was nineteen,\" he said. \"I was on watch. I saw his lantern go round the point and I never saw it again. So now I watch.\" He said it flatly, the way a man gives his address.",
    "Lin did not say she was sorry. She had learned that on Skarvøy you did not say it; you poured more coffee. She poured more coffee, and at half past three the beam went round and round over the empty water, and neither of them slept.",
], extra_meta={"setting": "lighthouse, watch room"})

CH["chapters/07-the-wreck.md"] = lambda rng: _chapter(7, "The Wreck of the Solveig", "Halvorsen", "draft", [
    "The coaster *Solveig* went onto the Kråkeskjær in the small hours of the ninth of December with a cargo of cement and a crew of seven.",
    "@",
    "* * *",
    "Up in the lighthouse the lamp went out at twenty past two. Tomas had wound it at two; the weight had jammed on a frayed cable, and the great lens stood dark for eleven minutes while he fought the mechanism with a lantern in his teeth. Lin, who had stayed the night because of the weather, held the lantern for him in the end, and when the beam came round again the first thing it showed them was the *Solveig*'s masthead light, far too close to the rocks.[^lamp]",
    "@",
    "* * *",
    "Halvorsen took his own boat out with Brekke's two sons and brought off five men; the mate and the cook were never found. He did not speak for the rest of that day, and in the evening he came to the Brekke house and sat in the kitchen with his coat on, and Lin put a cup in his hands and he held it without drinking until it was cold.",
    "@",
], rng=rng, grow=3500, footnotes=[("lamp", "A jammed weight-cable on a clockwork rotation: see the 1951 incident report at Lista quoted in research/fresnel-lenses.md.")],
    extra_meta={"setting": "the sound; lighthouse; Brekke house", "date": "1958-12-09"})

CH["chapters/08-meis-letter.md"] = lambda rng: _chapter(8, "Mei's Letter", "Lin", "draft", [
    "The letter that mattered came in January, alone, with a stamp Lin did not recognise. Mei wrote that their mother was in the Gulangyu hospital, that the doctors said it was the lungs, and that Lin should not come, in a hand that said come.",
    "Lin read it standing on the landing with the wind pulling at the paper, and then she folded it very small and put it in the pocket over her heart, and went back up the hill to work, because the paraffin still needed carrying.",
], extra_meta={"setting": "landing"})

CH["chapters/09-fog.md"] = lambda rng: _chapter(9, "Fog", "Lin", "first draft", [
    "For four days in February the fog sat on the sound so thick that the gulls walked. The foghorn at the lighthouse sounded every forty-five seconds, two blasts, and the whole island lived inside its rhythm like people living inside a clock.",
    "On the third night Lin climbed to the gallery alone. Tomas was down with fever and had given her the keys with a look she would remember; she stood at the rail outside the lamp room with the beam passing over her head into nothing, into wool, and she understood for the first time that the light was not for seeing by. It was for being seen.",
    "\"I could stay,\" she said aloud, to nobody, to the fog. It was the first time she had said it in any language.",
], extra_meta={"setting": "lighthouse gallery"})

CH["chapters/10-the-inquiry.md"] = lambda rng: _chapter(10, "The Inquiry", "Halvorsen", "draft", [
    "The maritime inquiry into the loss of the *Solveig* sat in the courthouse at Bodø in the first week of March, and Halvorsen went because he was summoned and Lin went because he asked her to.",
    "@",
    "* * *",
    "The chairman asked him whether, in his professional opinion, the light on Skarvøy had been dark at the material time. Halvorsen looked at Tomas across the room for a long moment. \"In my opinion,\" he said, \"the light was burning.\" It was the only lie Lin ever heard him tell, and she understood that he had told it for Tomas, and that he would not be forgiven for it by himself.",
    "Afterwards, in the hotel bar, he said: \"Nobody drowns all at once. They drown a little every year they stay ashore.\" He was drunk, and it was not clear whether he meant himself.",
    "@",
    "* * *",
    "Dr. Ingrid Sæther, who had given evidence on the bodies, found Lin on the steps of the courthouse and asked her, without preamble, whether she had ever thought of training as a nurse.",
    "@",
], rng=rng, grow=3600, footnotes=[("inq", "Procedure (a chairman, two nautical assessors, evidence on oath) after the Sjøforklaring rules, research/maritime-inquiry-procedure.md.")],
    extra_meta={"setting": "Bodø courthouse", "date": "1959-03-03"})

CH["chapters/11-return.md"] = lambda rng: _chapter(11, "Return", "Lin", "first draft", [
    "In April Lin went back up to the lighthouse alone and found Tomas's logbooks on the shelf in the watch room, thirty years of them, each night's weather in the same square hand. In the book for 1958 the entry for the ninth of December said only: *Light burning. Wind SW 9. Coaster Solveig lost on Kråkeskjær.*",
    "She sat with the book open on her knees for a long time. Then she took a pencil from her pocket and, under the entry, in small Chinese characters that nobody on the island could read, she wrote what had happened.",
], extra_meta={"setting": "lighthouse, watch room"})

CH["chapters/12-ending-draft.md"] = lambda rng: _chapter(12, "Ending (draft A)", "Lin", "rejected", [
    "The *Nordstjerna* came on a clear Thursday in May and Lin stood at the rail with the same suitcase and watched Skarvøy go down into the sea behind her, the white tower last of all. Halvorsen had not come to the landing. She had not expected him to.",
    "[Note to self: too neat. Nobody in this book gets to leave cleanly. See notes/ending.md.]",
])

ZH = {
    "chapters/zh/01-抵达.md": _front(title="第一章 抵达", chapter=1, pov="林雯", status="初稿", lang="zh", en="chapters/01-arrival.md")
    + "\n# 第一章 抵达\n\n一九五八年十月九日，渡轮“北极星号”把林雯放在了斯卡尔岛的码头上。她只有一只手提箱，一封卑尔根海员传教会的介绍信，对挪威秋天的寒冷毫无准备。\n\n从船舷望去，岛屿像一只动物的脊背从灰色里升起来，北端有一座白色的塔，接住了最后一点光。\n\n* * *\n\n布雷克太太提着灯在码头上等她，上下打量了她一番，觉得她太单薄，但还是决定给她饭吃。\n",
    "chapters/zh/02-港务室.md": _front(title="第二章 港务室", chapter=2, pov="林雯", status="初稿", lang="zh", en="chapters/02-the-harbour-office.md")
    + "\n# 第二章 港务室\n\n林雯第一次见到阿尔内·哈尔沃森船长，是在港务室里。他跪在地上，面前一张报纸上摊着拆散的气压计，正用三种语言低声咒骂它。他没有站起来，先看她的鞋，再看她的箱子，最后才看她的脸。\n\n“你就是传教会来的中国姑娘，”他说，“厦门小姐。”这不是一个问题，此后他一辈子都这样叫她。\n\n“这个气压计说天气晴朗，说了十一年了。它是个骗子，像所有乐观的人一样。”\n",
    "chapters/zh/03-灯室.md": _front(title="第三章 灯室", chapter=3, pov="林雯", status="初稿", lang="zh", en="chapters/03-the-lamp-room.md")
    + "\n# 第三章 灯室\n\n托马斯·维克爬灯塔的一百一十二级台阶，就像别人走去教堂一样，不慌不忙。到了顶上，他打开通往灯室的铜门，让她看那透镜。\n\n透镜比她还高，像一个玻璃棱镜做成的蜂巢，装在铜笼子里。“二等透镜，”他骄傲地说，“巴黎造的。”\n\n灯光不过是一个承诺：有人醒着。她当晚把这句话记了下来。\n",
    "chapters/zh/06-夜班.md": _front(title="第六章 夜班", chapter=6, pov="林雯", status="初稿", lang="zh", en="chapters/06-night-watch.md")
    + "\n# 第六章 夜班\n\n将临期前一周，托马斯第一次让她和他一起在灯塔值中班。他们坐在灯下的值班室里，炉子上放着一壶咖啡。他讲起他的哥哥艾纳尔，一九三一年冬天出海捕鲱鱼，再也没有回来。\n\n“我那年十九岁，我在值班。我看见他的灯绕过岬角，以后再也没看见。所以现在我守着。”\n",
    "chapters/zh/09-雾.md": _front(title="第九章 雾", chapter=9, pov="林雯", status="草稿", lang="zh", en="chapters/09-fog.md")
    + "\n# 第九章 雾\n\n二月里一连四天，大雾压在海峡上，浓得海鸥都只能走路。灯塔的雾笛每四十五秒响两声。\n\n第三天夜里，林雯独自爬上灯塔的回廊。她第一次明白，灯光不是用来看东西的，而是为了被看见。\n\n“我可以留下来，”她大声说，对着雾。\n",
}

CHARACTERS = {
    "characters/lin-wen.md": _front(aliases=["Wen", "林雯", "Miss Xiamen", "the girl from Xiamen"], role="protagonist", born=1934)
    + "\n# Lin Wen\n\nBorn Xiamen 1934, second daughter of a schoolteacher. Came to Norway through the Seamen's Mission in Bergen after the Mission's ship work in Hong Kong. Quiet, counts things when anxious (steps, ferries, days). Writes her diary in Chinese so nobody can read it.\n\n- Halvorsen calls her *Miss Xiamen* from ch. 2 on; she hates it, then doesn't.\n- Sister: [[mei-wen]]. Mother ill from ch. 8.\n- Arc: from counting the days until she can leave to being the one who keeps the light.\n",
    "characters/arne-halvorsen.md": _front(aliases=["the captain", "Old Halvor", "Kaptein Halvorsen"], role="deuteragonist", born=1891)
    + "\n# Arne Halvorsen\n\nRetired master mariner, 67 in 1958. Took the *Vesterålen* out of Narvik in April 1940 with her lights off. Lives alone above the boathouse. Mends instruments that do not need mending. Plays chess badly and happily.\n\nSpeech: short sentences, Norwegian proverbs bent out of shape, English learned in Liverpool pubs. Never says what he feels; says what the weather is doing instead.\n\nLies once in the book: at the inquiry (ch. 10), for Tomas.\n",
    "characters/tomas-vik.md": _front(aliases=["the keeper", "Tommy", "Vik"], role="supporting", born=1912)
    + "\n# Tomas Vik\n\nKeeper of Skarvøy light since 1929. His brother Einar drowned in 1931 while Tomas was on watch (ch. 6). Keeps a logbook every night in a square hand. The jammed weight on the night of the wreck (ch. 7) is his secret; the captain covers for him.\n",
    "characters/mei-wen.md": _front(aliases=["Mei", "林梅", "Little Plum"], role="offstage", born=1937)
    + "\n# Mei Wen\n\nLin's younger sister, stays in Xiamen. Present only in letters. Funnier than Lin; writes in bundles of three. Her January letter (ch. 8) brings the mother's illness.\n",
    "characters/ingrid-saether.md": _front(aliases=["the doctor", "Dr. Sæther", "Ingrid"], role="minor", born=1920)
    + "\n# Ingrid Sæther\n\nDistrict physician in Bodø. Gives evidence on the bodies at the inquiry. Offers Lin a way out (nurse training) that Lin refuses. Possibly a second POV in the next draft?\n",
    "characters/olav-brekke.md": _front(aliases=["the harbourmaster", "Brekke"], role="minor", born=1899)
    + "\n# Olav Brekke\n\nHarbourmaster, lodging-keeper (with Fru Brekke). Pompous, kind, keeps the ledger in tiny handwriting. Two sons, Per and Knut, who go out with Halvorsen on the night of the wreck.\n",
    "characters/fru-brekke.md": _front(aliases=["Fru Brekke", "Marta"], role="minor")
    + "\n# Marta Brekke\n\nFeeds everyone. Says 'Eat' as others say hello. Disapproves of Lin for one chapter and then adopts her.\n",
}

RESEARCH = {
    "research/beaufort-scale.md": "# Beaufort scale (clipping)\n\nsource: Met Office, National Meteorological Library fact sheet 6\n\n| force | name | knots | sea |\n|---|---|---|---|\n| 8 | gale | 34–40 | moderately high waves, crests break into spindrift |\n| 9 | strong gale | 41–47 | high waves, dense foam, spray may affect visibility |\n| 10 | storm | 48–55 | very high waves with long overhanging crests |\n| 11 | violent storm | 56–63 | exceptionally high waves |\n| 12 | hurricane | 64+ | air filled with foam and spray |\n\nUsed for the storm in ch. 4 (force 10) and the night of the wreck (SW 9).\n",
    "research/fresnel-lenses.md": "# Fresnel lenses and clockwork rotation\n\nOrders of lens by focal distance: first order 920 mm, second order 700 mm, third 500 mm. Norwegian coastal lights mostly second and third order, many made by Barbier, Bénard et Turenne in Paris.\n\nRotation by clockwork driven by a falling weight in the tower's central column, wound every 3–5 hours depending on the drop. Incident report, Lista 1951: the weight-cable frayed and jammed on the drum; the light stood dark for nine minutes before the keeper freed it by hand. (Used for ch. 7.)\n",
    "research/norwegian-lighthouse-service.md": "# Fyrvesenet: the Norwegian lighthouse service\n\nClippings from *Fyrvesenet 1855–1955* (jubilee volume).\n\n- Keepers' families lived at the station; children rowed to school.\n- p. 41, a keeper at Lindesnes: \"A light is nothing but a promise that somebody is awake.\" (Tomas says a version of this in ch. 3.)\n- Logbooks: weather at each watch, ships sighted, lamp failures to be reported to the district engineer within 24 hours. Not all were.\n",
    "research/hurtigruten-1950s.md": "# Coastal ferries in the 1950s\n\nLocal routes were served by small ferries once or twice a week; the island in the book gets the Thursday boat. Fares in 1958 about 6 kr Bodø to the outer islands. Passengers and post and paraffin in the same hold.\n",
    "research/xiamen-1950s.md": "# Xiamen in the 1950s\n\nGulangyu island: the hospital, the piano houses, the banyans. 1958: the shelling of Kinmen begins in August — Mei's letters must not mention it directly (censorship), so she writes about the weather being 'noisy'.\n",
    "research/maritime-inquiry-procedure.md": "# Maritime inquiry (sjøforklaring)\n\nHeld before the local court, a judge as chairman with two nautical assessors. Witnesses give evidence on oath; the lighthouse keeper's log is produced as evidence. The keeper's log for the night is read into the record.\n",
    "research/fog-signals.md": "# Fog signals\n\nDiaphone fog horns were installed at larger stations from the 1930s. Character for Skarvøy (invented): two blasts every 45 seconds. Real example: Tungenes, 1 blast every 30 s.\n",
    "research/letters-and-postage.md": "# Letters and postage, Norway–China, 1957–59\n\nFrom the Postverket circular of 1957 on overseas mail: Bodø–Trondheim–Oslo by rail, Oslo–London by air, London–Hong Kong by P&O mail boat, then by rail to Xiamen. Five to seven weeks. Airmail to Hong Kong 1 kr 20 per 5 g.\n",
}

NOTES = {
    "notes/ending.md": "---\nstatus: decided\nupdated: 2026-12-02\n---\n\n# The ending\n\nDecided on 2 December after the walk: **Lin stays on Skarvøy.** Halvorsen dies offstage in the winter after the inquiry (news comes by the ferry, in one line). The last image is Lin lighting the lamp for the first time as keeper, Tomas watching from the bottom of the steps.\n\nRejected: draft A (ch. 12), Lin leaving on the *Nordstjerna* — too neat, and it makes the book about escape. Rejected too: the romance ending with the captain; he is her father-shaped absence, not a lover.\n\nStill open: does Mei come? Maybe as a letter only, read in the lamp room.\n",
    "notes/outline.md": "# Outline\n\n1. Arrival — Lin lands on Skarvøy (Oct 1958)\n2. The Harbour Office — meets Halvorsen\n3. The Lamp Room — Tomas shows her the lens\n4. The Storm — boathouse scene with the captain\n5. Letters — to Mei\n6. Night Watch — Tomas's brother\n7. The Wreck of the Solveig — the lamp goes dark\n8. Mei's Letter — mother ill\n9. Fog — 'I could stay'\n10. The Inquiry — Halvorsen's lie\n11. Return — the logbook\n12. Ending — see notes/ending.md\n",
    "notes/style-sheet.md": "# Style sheet\n\n- Norwegian words in italics only the first time: *fyr*, *sjøforklaring*.\n- Chinese names surname first: Lin Wen, Mei Wen (the characters call her Miss Wen wrongly; keep it).\n- Ships' names in italics: *Nordstjerna*, *Solveig*, *Vesterålen*.\n- Dialogue: double quotes, British punctuation outside unless whole sentence.\n- Scene breaks: a line of `* * *`.\n",
    "notes/timeline.md": "# Timeline\n\n| date | event | chapter |\n|---|---|---|\n| 1931-01 | Einar Vik drowns | (6, told) |\n| 1940-04 | Halvorsen takes the *Vesterålen* out of Narvik | (4, told) |\n| 1958-10-09 | Lin arrives on the *Nordstjerna* | 1 |\n| 1958-10-10 | meets Halvorsen in the harbour office | 2 |\n| 1958-11-02 | the storm begins (three days) | 4 |\n| 1958-12-09 | *Solveig* wrecked on Kråkeskjær; lamp dark 11 min | 7 |\n| 1959-01 | Mei's letter: mother ill | 8 |\n| 1959-02 | four days of fog | 9 |\n| 1959-03-03 | inquiry opens at Bodø | 10 |\n| 1959-04 | Lin finds the logbook | 11 |\n",
    "notes/cut-scenes.md": "# Cut scenes\n\n## The harvest dance (cut from ch. 5)\n\nLin and Halvorsen dance at the harvest festival in the chapel hall; he dances like a man steering in a swell. Cut because it made the romance reading too easy.\n\n## Brekke's monologue about the Directorate (cut from ch. 4, yesterday)\n\nThree pages on the Directorate of Lights and its forms. Funny, but it stopped the storm dead.\n",
    "notes/epigraphs.md": "# Epigraph candidates\n\n- \"The sea has no memory\" — too glib.\n- Ibsen, *Terje Vigen*: \"Der bodde en underlig gråsprængt en / på den yderste nøgne ø\" — about a man on the outermost bare island.\n- From Tomas's line: a light is only a promise that someone is awake (use own line?).\n",
    "notes/questions-for-readers.md": "# Questions for the first readers\n\n- Is the captain's lie at the inquiry believable?\n- Does the Chinese in the logbook (ch. 11) land?\n- Is the storm chapter too long? (it is 10k words)\n",
}

LOGS = [
    (1, "Rewrote the boathouse scene in ch. 4 (the storm): the captain now tells the Narvik story himself instead of Lin remembering it. Cut Brekke's monologue about the Directorate. 1,850 words."),
    (2, "Walked to the lake and decided the ending: Lin stays. Wrote it up in notes/ending.md. No new words."),
    (3, "Fog chapter, first draft. The gallery scene came out in one go. 2,100 words."),
    (4, "Research day: Beaufort scale, Lista incident report for the jammed lamp. Notes only."),
    (5, "Ch. 10, the inquiry: the chairman's questions. Slow. 900 words."),
    (6, "Mei's letter. Short chapter; might fold it into ch. 9."),
    (7, "Read the whole draft aloud. The wreck chapter sags in the middle."),
    (8, "Night watch: Tomas's brother. Cried a bit, which is usually a good sign or a very bad one."),
    (9, "Chinese draft of ch. 2 and ch. 3, side by side with the English. The Chinese is plainer and better."),
    (10, "Letters chapter. Looked up postage to Hong Kong."),
    (11, "Nothing. Tax return."),
    (12, "Ch. 7 wreck: the rescue. 2,400 words, too many adjectives."),
    (13, "Character notes for Ingrid Sæther; maybe she needs more."),
    (14, "Timeline fixed: the storm was in November, not October."),
]


def write_corpus(root: Path, pdfs: Path | None = None, now: float | None = None) -> int:
    """Write the book into ``root``; daily logs dated back from ``now`` (their names and mtimes). Returns files."""
    now = time.time() if now is None else now
    if root.exists():
        shutil.rmtree(root)
    files: dict[str, str] = {}
    for index, (path, make) in enumerate(CH.items()):
        files[path] = make(random.Random(index))
    files.update(ZH)
    files.update(CHARACTERS)
    files.update(RESEARCH)
    files.update(NOTES)
    stamps: dict[str, float] = {}
    for days, text in LOGS:
        day = time.strftime("%Y-%m-%d", time.localtime(now - days * DAY))
        path = f"logs/{day}.md"
        files[path] = f"# Writing log {day}\n\n{text}\n"
        stamps[path] = now - days * DAY + 3600
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        stamp = stamps.get(path, now - 20 * DAY)
        os.utime(target, (stamp, stamp))
    count = len(files)
    if pdfs is not None and pdfs.exists():
        for pdf in sorted(pdfs.glob("*.pdf"))[:2]:
            (root / "research" / "pdf").mkdir(parents=True, exist_ok=True)
            shutil.copy(pdf, root / "research" / "pdf" / pdf.name)
            count += 1
    return count
